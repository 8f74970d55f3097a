// Matmul weight source for Q6_K (210-byte blocks of 256: 128 bytes ql, 64 bytes qh, 16 int8
// scales, f16 d): eight consecutive weights, which share one scale and lie in 8 consecutive
// bytes of ql and of qh. Blocks are only 2-byte aligned, so the data is read as 16-bit words.
#ifndef PB_MATMUL_WEIGHTS_GLSL
#define PB_MATMUL_WEIGHTS_GLSL

#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

#include "dequant.glsl"

layout(binding = 0) readonly buffer W { uint16_t w[]; };  // 105 half-words per block

// Weights row[k .. k+7] of the bound slice, k a multiple of 8; ggml's rounding exactly.
void matmul_weights8(uint row, uint k, uint cols, out vec4 lo, out vec4 hi) {
  const uint base = (row * (cols / 256) + k / 256) * 105;
  const uint i = k % 256;
  const float d = dq_half(uint(w[base + 104]));
  const uint scale_byte = 192 + dq_q6_k_scale_index(i);
  const uint scale_word = uint(w[base + scale_byte / 2]);
  const int scale = dq_int8((scale_word >> (8 * (scale_byte & 1u))) & 0xffu);
  const uint ql = base + dq_q6_k_ql_byte(i) / 2;          // even byte offsets: whole half-words
  const uint qh = base + (128 + dq_q6_k_qh_byte(i)) / 2;
  for (int j = 0; j < 4; ++j) {
    const uint l = uint(w[ql + j]), h = uint(w[qh + j]);
    const float a = dq_q6_k_value(d, scale, dq_q6_k_quant(l & 0xffu, h & 0xffu, i + 2 * j));
    const float b = dq_q6_k_value(d, scale, dq_q6_k_quant(l >> 8, h >> 8, i + 2 * j + 1));
    if (j < 2) {
      lo[2 * j] = a;
      lo[2 * j + 1] = b;
    } else {
      hi[2 * j - 4] = a;
      hi[2 * j - 3] = b;
    }
  }
}

#endif
