// Matmul weight source for Q8_0 in groups of 32 weights, for the cooperative-matrix kernel:
// one group is a whole block, its 32 int8 quants as two aligned uvec4s and its f16 scale d as
// one 16-bit word, from the device layout (q8_0_device_layout.glsl). The weights come out as
// f16 in k_order (f16_bytes.glsl): q * d, each rounded once, as the f16 rounding of the exact
// weight. Needs K steps that are multiples of 32 (the op builder checks). Contract:
// matmul_weights_f32.glsl.
#ifndef PB_MATMUL_WEIGHTS_GLSL
#define PB_MATMUL_WEIGHTS_GLSL

#extension GL_EXT_shader_16bit_storage : require

#include "dequant.glsl"
#include "f16_bytes.glsl"
#include "q8_0_device_layout.glsl"

#define MATMUL_GROUP 32

layout(binding = 0) readonly buffer W { uvec4 w_quants[]; };
layout(binding = 0) readonly buffer WS { uint16_t w_scales[]; };

struct WeightGroup {
  uvec4 lo, hi;  // the block's 32 quants
  uint d;        // the bits of its f16 scale
};

// Weights row[k .. k+31] of the bound slice, k a multiple of 32 (block k / 32 of the row).
WeightGroup matmul_fetch_group(uint row, uint k, uint cols, uint rows) {
  const uint q = q8_0_quants_byte(row, cols, k / 32u) >> 4;
  return WeightGroup(w_quants[q], w_quants[q + 1u], uint(w_scales[q8_0_scale_byte(row, cols, k / 32u) >> 1]));
}

WeightGroup matmul_zero_group() { return WeightGroup(uvec4(0u), uvec4(0u), 0u); }

// The group's weights in k_order, four per f16vec4.
#define MATMUL_DECODE_F16
void matmul_decode_f16(WeightGroup g, uint k, out f16vec4 v[MATMUL_GROUP / 4]) {
  const float16_t d = float16_t(dq_half(g.d));
  [[unroll]] for (uint m = 0; m < 4; ++m) {
    v[m] = signed_bytes_f16(g.lo[m], d);
    v[m + 4] = signed_bytes_f16(g.hi[m], d);
  }
}

#endif
