#version 450
// DMMV over Q4_K weights for several columns on the matrix units (dmmv_coopmat_body.glsl), in
// the integer-dot kernel's 16-weight chunks (dmmv_intdot_q4_k16.glsl: the layout is there).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

#include "dmmv_intdot_common.glsl"
#include "dmmv_intdot_q4_k16.glsl"

void dequantize_chunk(WeightRaw raw, uint chunk, out f16vec4 v[4]);

#include "dmmv_coopmat_body.glsl"

void dequantize_chunk(WeightRaw raw, uint chunk, out f16vec4 v[4]) {
  const uvec4 q = chunk_nibbles(raw, chunk);
  // (d sc, dmin m), rounded to f16 (2^-11 relative, within the kernel's f16 rounding)
  const vec2 sm = chunk_scale_min(raw, chunk);
  const float16_t scale = float16_t(sm.x), offset = float16_t(sm.y);
  [[unroll]] for (uint j = 0; j < 4; ++j) v[j] = unsigned_bytes_f16(q[j], scale, offset);
}
