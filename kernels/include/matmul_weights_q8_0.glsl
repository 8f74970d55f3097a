// Matmul weight source for Q8_0 (34-byte blocks of 32: f16 d, 32 int8): eight consecutive
// weights of one block. Blocks are only 2-byte aligned, so the data is read as 16-bit words.
// Contract: matmul_weights_f32.glsl.
#ifndef PB_MATMUL_WEIGHTS_GLSL
#define PB_MATMUL_WEIGHTS_GLSL

#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

#include "dequant.glsl"

layout(binding = 0) readonly buffer W { uint16_t w[]; };  // 17 half-words per block

struct WeightGroup {
  uint d;     // f16 scale bits
  uvec4 q;    // four half-words: the 8 quants, two per half-word
};

// Weights row[k .. k+7] of the bound slice, k a multiple of 8.
WeightGroup matmul_fetch_group(uint row, uint k, uint cols) {
  const uint base = (row * (cols / 32) + k / 32) * 17;
  const uint q = base + 1 + (k % 32) / 2;  // first of four half-words holding the 8 quants
  return WeightGroup(uint(w[base]), uvec4(uint(w[q]), uint(w[q + 1]), uint(w[q + 2]), uint(w[q + 3])));
}

WeightGroup matmul_zero_group() { return WeightGroup(0u, uvec4(0u)); }

void matmul_decode8(WeightGroup g, uint k, out vec4 lo, out vec4 hi) {
  const float d = dq_half(g.d);
  for (int j = 0; j < 2; ++j) {
    lo[2 * j] = dq_q8_0_value(d, dq_int8(g.q[j] & 0xffu));
    lo[2 * j + 1] = dq_q8_0_value(d, dq_int8(g.q[j] >> 8));
    hi[2 * j] = dq_q8_0_value(d, dq_int8(g.q[2 + j] & 0xffu));
    hi[2 * j + 1] = dq_q8_0_value(d, dq_int8(g.q[2 + j] >> 8));
  }
}

#endif
