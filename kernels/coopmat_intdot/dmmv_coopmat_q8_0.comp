#version 450
// DMMV over Q8_0 weights for several columns on the matrix units (dmmv_coopmat_body.glsl), in
// the integer-dot kernel's 16-weight chunks and word reads (dmmv_intdot_q8_0.glsl).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

#include "dmmv_intdot_common.glsl"
#include "dmmv_intdot_q8_0.glsl"

void dequantize_chunk(WeightRaw raw, uint chunk, out f16vec4 v[4]);

#include "dmmv_coopmat_body.glsl"

void dequantize_chunk(WeightRaw raw, uint chunk, out f16vec4 v[4]) {
  const float16_t d = unpackFloat2x16(chunk_scale_bits(raw)).x;  // the file's f16 scale, exact
  [[unroll]] for (uint j = 0; j < 4; ++j) v[j] = signed_bytes_f16(chunk_quant_word(raw, j), d);
}
