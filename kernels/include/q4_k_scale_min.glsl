// The 6-bit scale and min of a Q4_K sub-block, from its block's first uvec4 (d and dmin, then
// the 12 bytes of packed scales and mins), for every kernel that reads Q4_K weights a uvec4 at
// a time (dmmv_format_q4_k.glsl, dmmv_intdot_q4_k.glsl, dmmv_intdot_q4_k16.glsl).
#ifndef PB_Q4_K_SCALE_MIN_GLSL
#define PB_Q4_K_SCALE_MIN_GLSL

uint q4k_byte(uint word, uint i) { return (word >> (8u * i)) & 0xffu; }

// Scale and min of sub-block `is` (0..7; ggml's get_scale_min_k4), by shifts only (dynamic
// vector indexing may go to local memory) and by selects, not a branch: neighbouring threads
// of the integer-dot kernels hold different sub-blocks, and as a branch the 16-weight kernel's
// 4 columns took 27.0 instead of 23.8 us (ffn_down 4096x14336, H200). The integer-dot DMMVs
// at other widths measured the same either way; the float one moved both ways (one column:
// ffn_down 36.5 -> 35.2 us, ffn_up 38.7 -> 40.7) and float decode got faster (llama3-8b
// Q4_K 161 -> 171 tok/s, docs/GPU_FIGURES.md).
vec2 q4k_scale_min(uint is, uvec4 header) {
  const uint i = is & 3u;
  const uint by = q4k_byte(header.y, i), bz = q4k_byte(header.z, i), bw = q4k_byte(header.w, i);
  const bool upper = is >= 4u;
  return vec2(float(upper ? (bw & 0xfu) | ((by >> 6) << 4) : by & 63u),
              float(upper ? (bw >> 4) | ((bz >> 6) << 4) : bz & 63u));
}

#endif  // PB_Q4_K_SCALE_MIN_GLSL
