#version 450
// DMMV over Q8_0 weights for several columns on the matrix units (dmmv_coopmat_body.glsl), in
// the integer-dot kernel's 16-weight chunks and word reads (dmmv_intdot_q8_0.glsl).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

#include "dmmv_intdot_common.glsl"
#include "dmmv_intdot_q8_0.glsl"

struct WeightRaw {
  uint u[5];       // the words covering the chunk's 16 quants
  uint d_word;     // the word holding the block's scale
  uint odd_bytes;  // bit 1: the quants start 2 bytes into u[0]; bit 0: d in the upper half
};

WeightRaw fetch_chunk(uint row, uint chunk) {
  const uint row_bytes = (pc.cols / 32u) * 34u;
  const uint block_byte = row * row_bytes + (chunk >> 1) * 34u;
  const uint q_byte = block_byte + 2u + 16u * (chunk & 1u);
  const uint i = q_byte >> 2;
  const uint last = (pc.rows * row_bytes >> 2) - 1u;  // as load_weights: never past the binding
  WeightRaw r;
  r.u = uint[5](w[i], w[i + 1], w[i + 2], w[i + 3], w[min(i + 4u, last)]);
  r.d_word = w[block_byte >> 2];
  r.odd_bytes = (q_byte & 2u) | ((block_byte >> 1) & 1u);
  return r;
}

void dequantize_chunk(WeightRaw raw, uint chunk, out f16vec4 v[4]);

#include "dmmv_coopmat_body.glsl"

void dequantize_chunk(WeightRaw raw, uint chunk, out f16vec4 v[4]) {
  const uint q_byte = raw.odd_bytes & 2u;
  const uint d_bits = (raw.odd_bytes & 1u) == 0u ? raw.d_word : raw.d_word >> 16;
  const float16_t d = unpackFloat2x16(d_bits & 0xffffu).x;  // the file's f16 scale, exact
  [[unroll]] for (uint j = 0; j < 4; ++j) v[j] = signed_bytes_f16(word_at(q_byte, raw.u[j], raw.u[j + 1]), d);
}
