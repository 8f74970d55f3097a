// Q6_K as the device stores it (engine/quant/device_layout.h): rows in groups of 8, each group
// holding the 208-byte bodies of its rows' blocks (128 bytes ql, 64 qh, 16 int8 scales, in
// GGUF's order) row by row, then their f16 d values in the same order. A group is 1680 bytes
// per block of a row, a multiple of 16, so every body starts on 16 bytes: 13 aligned uvec4s.
// A tensor's last group may hold fewer rows; its d values then follow its fewer bodies. The ops
// bind row ranges that start on a group and end on one or at the tensor's end.
#ifndef PB_Q6_K_DEVICE_LAYOUT_GLSL
#define PB_Q6_K_DEVICE_LAYOUT_GLSL

// Byte offsets from the start of the binding, for rows of `cols` weights.
uint q6_k_group_byte(uint row, uint cols) { return (row >> 3) * (cols / 256u) * 1680u; }
uint q6_k_body_byte(uint row, uint cols, uint block) {
  return q6_k_group_byte(row, cols) + ((row & 7u) * (cols / 256u) + block) * 208u;
}
// Rows of the group `row` is in: 8, or fewer in the last group of the `rows` bound.
uint q6_k_group_rows(uint row, uint rows) { return min(8u, rows - (row & ~7u)); }
uint q6_k_d_byte(uint row, uint cols, uint block, uint rows) {
  return q6_k_group_byte(row, cols) + q6_k_group_rows(row, rows) * (cols / 256u) * 208u +
         ((row & 7u) * (cols / 256u) + block) * 2u;
}

#endif
