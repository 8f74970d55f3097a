// Matmul weight source for Q4_K (144-byte blocks of 256: f16 d, f16 dmin, 12 scale bytes, 128
// bytes of nibbles): eight consecutive weights of one 32-weight sub-block, which share a
// scale and min and lie in 8 consecutive bytes of qs (two words).
#ifndef PB_MATMUL_WEIGHTS_GLSL
#define PB_MATMUL_WEIGHTS_GLSL

#include "dequant.glsl"

layout(binding = 0) readonly buffer W { uint w[]; };  // 36 words per block

// Weights row[k .. k+7] of the bound slice, k a multiple of 8; ggml's rounding exactly.
void matmul_weights8(uint row, uint k, uint cols, out vec4 lo, out vec4 hi) {
  const uint base = (row * (cols / 256) + k / 256) * 36;
  const uint i = k % 256;
  const uint dm = w[base];
  const float d = dq_half(dm & 0xffffu), dmin = dq_half(dm >> 16);
  const uvec2 sm = dq_q4_k_scale_min(uvec3(w[base + 1], w[base + 2], w[base + 3]), i >> 5);
  const uint word = base + 4 + dq_q4_k_qs_byte(i) / 4;
  const uint q0 = w[word] >> dq_q4_k_qs_shift(i), q1 = w[word + 1] >> dq_q4_k_qs_shift(i);
  for (int j = 0; j < 4; ++j) {
    lo[j] = dq_q4_k_value(d, dmin, sm, (q0 >> (8 * j)) & 0xfu);
    hi[j] = dq_q4_k_value(d, dmin, sm, (q1 >> (8 * j)) & 0xfu);
  }
}

#endif
