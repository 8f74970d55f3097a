// Matmul weight source for Q6_K: eight consecutive weights, which share one scale and lie in 8
// consecutive bytes of ql and of qh, in the device layout (q6_k_device_layout.glsl): those are
// one aligned uvec2 each, and the scale and d 16-bit loads. Contract: matmul_weights_f32.glsl.
#ifndef PB_MATMUL_WEIGHTS_GLSL
#define PB_MATMUL_WEIGHTS_GLSL

#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

#include "dequant.glsl"
#include "q6_k_device_layout.glsl"

layout(binding = 0) readonly buffer W { uvec2 w_pairs[]; };
layout(binding = 0) readonly buffer WD { uint16_t w_halves[]; };

struct WeightGroup {
  uint d;           // f16 scale bits
  uint scale_word;  // the half-word holding the group's int8 scale
  uvec2 ql, qh;     // 8 bytes each: one weight per byte
};

// Weights row[k .. k+7] of the bound slice, k a multiple of 8.
WeightGroup matmul_fetch_group(uint row, uint k, uint cols, uint rows) {
  const uint body = q6_k_body_byte(row, cols, k / 256);
  const uint i = k % 256;
  return WeightGroup(uint(w_halves[q6_k_d_byte(row, cols, k / 256, rows) >> 1]),
                     uint(w_halves[(body + 192 + dq_q6_k_scale_index(i)) >> 1]),
                     w_pairs[(body + dq_q6_k_ql_byte(i)) >> 3], w_pairs[(body + 128 + dq_q6_k_qh_byte(i)) >> 3]);
}

WeightGroup matmul_zero_group() { return WeightGroup(0u, 0u, uvec2(0u), uvec2(0u)); }

// ggml's rounding exactly.
void matmul_decode8(WeightGroup g, uint k, out vec4 lo, out vec4 hi) {
  const uint i = k % 256;
  const float d = dq_half(g.d);
  const uint scale_byte = 192 + dq_q6_k_scale_index(i);
  const int scale = dq_int8((g.scale_word >> (8 * (scale_byte & 1u))) & 0xffu);
  for (int j = 0; j < 4; ++j) {
    const uint s = 8 * j;
    lo[j] = dq_q6_k_value(d, scale, dq_q6_k_quant((g.ql.x >> s) & 0xffu, (g.qh.x >> s) & 0xffu, i + j));
    hi[j] = dq_q6_k_value(d, scale, dq_q6_k_quant((g.ql.y >> s) & 0xffu, (g.qh.y >> s) & 0xffu, i + 4 + j));
  }
}

#endif
