// Matmul weight source for Q8_0 (34-byte blocks of 32: f16 d, 32 int8): eight consecutive
// weights of one block. Blocks are only 2-byte aligned, so the data is read as 16-bit words.
#ifndef PB_MATMUL_WEIGHTS_GLSL
#define PB_MATMUL_WEIGHTS_GLSL

#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

#include "dequant.glsl"

layout(binding = 0) readonly buffer W { uint16_t w[]; };  // 17 half-words per block

// Weights row[k .. k+7] of the bound slice, k a multiple of 8.
void matmul_weights8(uint row, uint k, uint cols, out vec4 lo, out vec4 hi) {
  const uint base = (row * (cols / 32) + k / 32) * 17;
  const float d = dq_half(uint(w[base]));
  const uint q = base + 1 + (k % 32) / 2;  // first of four half-words holding the 8 quants
  for (int j = 0; j < 2; ++j) {
    const uint h = uint(w[q + j]);
    lo[2 * j] = dq_q8_0_value(d, dq_int8(h & 0xffu));
    lo[2 * j + 1] = dq_q8_0_value(d, dq_int8(h >> 8));
    const uint g = uint(w[q + 2 + j]);
    hi[2 * j] = dq_q8_0_value(d, dq_int8(g & 0xffu));
    hi[2 * j + 1] = dq_q8_0_value(d, dq_int8(g >> 8));
  }
}

#endif
