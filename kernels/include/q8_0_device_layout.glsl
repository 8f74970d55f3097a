// Q8_0 rows as the device stores them (engine/quant/device_layout.h): each row holds the quants
// of its blocks first, 32 bytes a block in block order, then the blocks' f16 scales, 2 bytes
// each. The ops take Q8_0 rows of a multiple of 256 weights only, so every row starts on 16
// bytes and every block's quants are two aligned uvec4s.
#ifndef PB_Q8_0_DEVICE_LAYOUT_GLSL
#define PB_Q8_0_DEVICE_LAYOUT_GLSL

// Byte offsets from the start of the binding, for rows of `cols` weights.
uint q8_0_row_byte(uint row, uint cols) { return row * (cols / 32u) * 34u; }
uint q8_0_quants_byte(uint row, uint cols, uint block) { return q8_0_row_byte(row, cols) + block * 32u; }
uint q8_0_scale_byte(uint row, uint cols, uint block) { return q8_0_row_byte(row, cols) + cols + block * 2u; }

#endif
