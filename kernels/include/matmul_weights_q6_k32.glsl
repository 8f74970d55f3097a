// Matmul weight source for Q6_K in groups of 32 weights, for the cooperative-matrix kernel:
// 32 consecutive weights of a block share their ql nibble half and qh bit pair and lie in 32
// consecutive bytes of each, under two int8 scales. In the device layout
// (q6_k_device_layout.glsl) both runs are two aligned uvec4s. The weights come out as f16 in
// k_order (f16_bytes.glsl): (q - 32) * (d scale) with d scale rounded to f16 (2^-11 relative,
// within the kernel's f16 rounding) and each weight rounded once. Needs K steps that are
// multiples of 32 (the op builder checks). Contract: matmul_weights_f32.glsl.
#ifndef PB_MATMUL_WEIGHTS_GLSL
#define PB_MATMUL_WEIGHTS_GLSL

#extension GL_EXT_shader_16bit_storage : require

#include "dequant.glsl"
#include "f16_bytes.glsl"
#include "q6_k_device_layout.glsl"

#define MATMUL_GROUP 32

layout(binding = 0) readonly buffer W { uvec4 w_body[]; };
layout(binding = 0) readonly buffer WD { uint16_t w_halves[]; };

struct WeightGroup {
  uvec4 ql[2], qh[2];  // the group's 32 ql and 32 qh bytes
  uint scales;         // the group's two int8 scales (one per 16 weights)
  uint d;              // f16 super-block scale
};

// Weights row[k .. k+31] of the bound slice, k a multiple of 32.
WeightGroup matmul_fetch_group(uint row, uint k, uint cols, uint rows) {
  const uint body = q6_k_body_byte(row, cols, k / 256);
  const uint i = k % 256;
  const uint ql = (body + dq_q6_k_ql_byte(i)) >> 4, qh = (body + 128 + dq_q6_k_qh_byte(i)) >> 4;
  WeightGroup g;
  g.ql = uvec4[2](w_body[ql], w_body[ql + 1]);
  g.qh = uvec4[2](w_body[qh], w_body[qh + 1]);
  g.scales = uint(w_halves[(body + 192 + dq_q6_k_scale_index(i)) >> 1]);
  g.d = uint(w_halves[q6_k_d_byte(row, cols, k / 256, rows) >> 1]);
  return g;
}

WeightGroup matmul_zero_group() {
  WeightGroup g;
  g.ql = uvec4[2](uvec4(0u), uvec4(0u));
  g.qh = uvec4[2](uvec4(0u), uvec4(0u));
  g.scales = 0u;
  g.d = 0u;
  return g;
}

// The group's weights in k_order, four per f16vec4.
#define MATMUL_DECODE_F16
void matmul_decode_f16(WeightGroup g, uint k, out f16vec4 v[MATMUL_GROUP / 4]) {
  const uint i = k % 256;
  const float d = dq_half(g.d);
  const float16_t s0 = float16_t(d * float(dq_int8(g.scales & 0xffu)));
  const float16_t s1 = float16_t(d * float(dq_int8(g.scales >> 8)));
  const uint low_shift = (i & 64u) >> 4, high_shift = (i >> 4) & 6u;  // as dq_q6_k_quant
  [[unroll]] for (uint m = 0; m < 8; ++m) {
    const uint q = ((g.ql[m >> 2][m & 3u] >> low_shift) & 0x0f0f0f0fu) |
                   (((g.qh[m >> 2][m & 3u] >> high_shift) & 0x03030303u) << 4);
    const float16_t s = m < 4 ? s0 : s1;
    v[m] = unsigned_bytes_f16(q, s, s * 32.0hf);  // (q - 32) s, rounded once
  }
}

#endif
