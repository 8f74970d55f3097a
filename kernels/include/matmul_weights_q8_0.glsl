// Matmul weight source for Q8_0: eight consecutive weights of one block, from the device
// layout (q8_0_device_layout.glsl): the 8 quants as one aligned uvec2, the block's f16 scale as
// one 16-bit word. Contract: matmul_weights_f32.glsl.
#ifndef PB_MATMUL_WEIGHTS_GLSL
#define PB_MATMUL_WEIGHTS_GLSL

#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

#include "dequant.glsl"
#include "q8_0_device_layout.glsl"

layout(binding = 0) readonly buffer W { uvec2 w_quants[]; };
layout(binding = 0) readonly buffer WS { uint16_t w_scales[]; };

struct WeightGroup {
  uint d;    // f16 scale bits
  uvec2 q;   // the 8 quants, four to a word
};

// Weights row[k .. k+7] of the bound slice, k a multiple of 8.
WeightGroup matmul_fetch_group(uint row, uint k, uint cols, uint rows) {
  const uint block = k / 32u;
  return WeightGroup(uint(w_scales[q8_0_scale_byte(row, cols, block) >> 1]),
                     w_quants[(q8_0_quants_byte(row, cols, block) + k % 32u) >> 3]);
}

WeightGroup matmul_zero_group() { return WeightGroup(0u, uvec2(0u)); }

void matmul_decode8(WeightGroup g, uint k, out vec4 lo, out vec4 hi) {
  const float d = dq_half(g.d);
  for (int j = 0; j < 4; ++j) {
    lo[j] = dq_q8_0_value(d, dq_int8((g.q.x >> (8 * j)) & 0xffu));
    hi[j] = dq_q8_0_value(d, dq_int8((g.q.y >> (8 * j)) & 0xffu));
  }
}

#endif
