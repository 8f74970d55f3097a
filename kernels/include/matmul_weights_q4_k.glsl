// Matmul weight source for Q4_K (144-byte blocks of 256: f16 d, f16 dmin, 12 scale bytes, 128
// bytes of nibbles): eight consecutive weights of one 32-weight sub-block, which share a
// scale and min and lie in 8 consecutive bytes of qs (two words).
// Contract: matmul_weights_f32.glsl.
#ifndef PB_MATMUL_WEIGHTS_GLSL
#define PB_MATMUL_WEIGHTS_GLSL

#include "dequant.glsl"

// One binding seen two ways, so that a group takes two loads: its block's 16-byte header
// (blocks are 144 = 9 x 16 bytes, slices start on 16 bytes) and its 8 bytes of nibbles.
layout(binding = 0) readonly buffer W4 { uvec4 w4[]; };  // 9 per block; [0] = d, dmin, scales
layout(binding = 0) readonly buffer W2 { uvec2 w2[]; };  // 18 per block

struct WeightGroup {
  uvec4 header;  // f16 d | f16 dmin << 16, then the 12 scale bytes
  uvec2 qs;      // the two qs words holding the 8 nibbles
};

// Weights row[k .. k+7] of the bound slice, k a multiple of 8.
WeightGroup matmul_fetch_group(uint row, uint k, uint cols, uint rows) {
  const uint block = row * (cols / 256) + k / 256;
  return WeightGroup(w4[block * 9], w2[block * 18 + 2 + dq_q4_k_qs_byte(k % 256) / 8]);
}

WeightGroup matmul_zero_group() { return WeightGroup(uvec4(0u), uvec2(0u)); }

// ggml's rounding exactly.
void matmul_decode8(WeightGroup g, uint k, out vec4 lo, out vec4 hi) {
  const uint i = k % 256;
  const float d = dq_half(g.header.x & 0xffffu), dmin = dq_half(g.header.x >> 16);
  const uvec2 sm = dq_q4_k_scale_min(g.header.yzw, i >> 5);
  const uint q0 = g.qs.x >> dq_q4_k_qs_shift(i), q1 = g.qs.y >> dq_q4_k_qs_shift(i);
  for (int j = 0; j < 4; ++j) {
    lo[j] = dq_q4_k_value(d, dmin, sm, (q0 >> (8 * j)) & 0xfu);
    hi[j] = dq_q4_k_value(d, dmin, sm, (q1 >> (8 * j)) & 0xfu);
  }
}

#endif
