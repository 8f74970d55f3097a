#version 450
// DMMV over Q4_K weights for several columns on the matrix units (dmmv_coopmat_body.glsl), in
// the integer-dot kernel's 16-weight chunks (dmmv_intdot_q4_k16.glsl: the layout is there).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

#include "dmmv_intdot_common.glsl"
#include "dmmv_intdot_q4_k16.glsl"

struct WeightRaw {
  uvec4 header;  // the block's d, dmin and packed scales
  uvec4 packed;  // the nibble uvec4 holding the chunk
};

WeightRaw fetch_chunk(uint row, uint chunk) {
  const uint base = (row * (pc.cols / 256u) + (chunk >> 4)) * 9u;
  return WeightRaw(w[base], w[base + 1u + 2u * ((chunk >> 2) & 3u) + (chunk & 1u)]);
}

void dequantize_chunk(WeightRaw raw, uint chunk, out f16vec4 v[4]);

#include "dmmv_coopmat_body.glsl"

void dequantize_chunk(WeightRaw raw, uint chunk, out f16vec4 v[4]) {
  const uint high = (chunk >> 1) & 1u;  // high nibbles: sub-block 2j + 1
  const uvec4 q = (raw.packed >> (4u * high)) & uvec4(0x0f0f0f0fu);
  // (d sc, dmin m), rounded to f16 (2^-11 relative, within the kernel's f16 rounding)
  const vec2 sm = q4k_scale_min(2u * ((chunk >> 2) & 3u) + high, raw.header) * unpackHalf2x16(raw.header.x);
  const float16_t scale = float16_t(sm.x), offset = float16_t(sm.y);
  [[unroll]] for (uint j = 0; j < 4; ++j) v[j] = unsigned_bytes_f16(q[j], scale, offset);
}
