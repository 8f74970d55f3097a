// Matmul weight source for Q6_K (210-byte blocks of 256: 128 bytes ql, 64 bytes qh, 16 int8
// scales, f16 d): eight consecutive weights, which share one scale and lie in 8 consecutive
// bytes of ql and of qh. Blocks are only 2-byte aligned, so the data is read as 16-bit words.
// Contract: matmul_weights_f32.glsl.
#ifndef PB_MATMUL_WEIGHTS_GLSL
#define PB_MATMUL_WEIGHTS_GLSL

#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

#include "dequant.glsl"

layout(binding = 0) readonly buffer W { uint16_t w[]; };  // 105 half-words per block

struct WeightGroup {
  uint d;           // f16 scale bits
  uint scale_word;  // the half-word holding the group's int8 scale
  uvec4 ql, qh;     // four half-words each: two weights per half-word
};

// Weights row[k .. k+7] of the bound slice, k a multiple of 8.
WeightGroup matmul_fetch_group(uint row, uint k, uint cols) {
  const uint base = (row * (cols / 256) + k / 256) * 105;
  const uint i = k % 256;
  const uint ql = base + dq_q6_k_ql_byte(i) / 2;  // even byte offsets: whole half-words
  const uint qh = base + (128 + dq_q6_k_qh_byte(i)) / 2;
  return WeightGroup(uint(w[base + 104]), uint(w[base + (192 + dq_q6_k_scale_index(i)) / 2]),
                      uvec4(uint(w[ql]), uint(w[ql + 1]), uint(w[ql + 2]), uint(w[ql + 3])),
                      uvec4(uint(w[qh]), uint(w[qh + 1]), uint(w[qh + 2]), uint(w[qh + 3])));
}

WeightGroup matmul_zero_group() { return WeightGroup(0u, 0u, uvec4(0u), uvec4(0u)); }

// ggml's rounding exactly.
void matmul_decode8(WeightGroup g, uint k, out vec4 lo, out vec4 hi) {
  const uint i = k % 256;
  const float d = dq_half(g.d);
  const uint scale_byte = 192 + dq_q6_k_scale_index(i);
  const int scale = dq_int8((g.scale_word >> (8 * (scale_byte & 1u))) & 0xffu);
  for (int j = 0; j < 4; ++j) {
    const float a = dq_q6_k_value(d, scale, dq_q6_k_quant(g.ql[j] & 0xffu, g.qh[j] & 0xffu, i + 2 * j));
    const float b = dq_q6_k_value(d, scale, dq_q6_k_quant(g.ql[j] >> 8, g.qh[j] >> 8, i + 2 * j + 1));
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
