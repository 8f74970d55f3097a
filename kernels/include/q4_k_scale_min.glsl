// The 6-bit scale and min of a Q4_K sub-block, from its block's first uvec4 (d and dmin, then
// the 12 bytes of packed scales and mins), for every kernel that reads Q4_K weights a uvec4 at
// a time (dmmv_format_q4_k.glsl, dmmv_intdot_q4_k16.glsl, dmmv_intdot_q4_k32.glsl); and that of
// two neighbouring sub-blocks at once (dmmv_intdot_q4_k.glsl).
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

// The scales and mins of sub-blocks 2j and 2j + 1 (j = 0..3) at once, as (sc 2j, sc 2j + 1,
// m 2j, m 2j + 1): the two sub-blocks' bytes are neighbours in each header word, so one 16-bit
// window of each decodes both with the byte-wise masks of q4k_scale_min, for about half its
// instructions per sub-block (the 64-weight integer-dot chunks, dmmv_intdot_q4_k.glsl).
vec4 q4k_scale_min_pair(uint j, uvec4 header) {
  const uint shift = 16u * (j & 1u);
  const uint y = (header.y >> shift) & 0xffffu, z = (header.z >> shift) & 0xffffu;
  const uint w = (header.w >> shift) & 0xffffu;
  const bool upper = j >= 2u;
  const uint sc = upper ? (w & 0x0f0fu) | ((y >> 2) & 0x3030u) : y & 0x3f3fu;
  const uint mn = upper ? ((w >> 4) & 0x0f0fu) | ((z >> 2) & 0x3030u) : z & 0x3f3fu;
  return vec4(float(sc & 0xffu), float(sc >> 8), float(mn & 0xffu), float(mn >> 8));
}

#endif  // PB_Q4_K_SCALE_MIN_GLSL
