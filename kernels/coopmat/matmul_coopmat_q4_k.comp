#version 450
// Tiled matmul over Q4_K weights through cooperative matrices (prefill: matmul where the
// device and the compiler allow it). The weights are decoded straight to f16: through
// float and a conversion, the decode held the kernel back (ffn_up 14336x4096 at 512 tokens,
// H200: see docs/GPU_FIGURES.md).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

#include "f16_bytes.glsl"
#include "matmul_weights_q4_k.glsl"

// Group g's weights in k_order (matmul_coopmat_body.glsl): q * (d sc) - dmin m with d sc and
// dmin m rounded to f16 (2^-11 relative, within the kernel's f16 rounding) and each weight
// rounded once.
#define MATMUL_DECODE8_F16
void matmul_decode8_f16(WeightGroup8 g, uint k, out f16vec4 lo, out f16vec4 hi) {
  const uint i = k % 256;
  const float d = dq_half(g.header.x & 0xffffu), dmin = dq_half(g.header.x >> 16);
  const uvec2 sm = dq_q4_k_scale_min(g.header.yzw, i >> 5);
  const float16_t scale = float16_t(d * float(sm.x)), offset = float16_t(dmin * float(sm.y));
  const uint shift = dq_q4_k_qs_shift(i);
  lo = unsigned_bytes_f16((g.qs.x >> shift) & 0x0f0f0f0fu, scale, offset);
  hi = unsigned_bytes_f16((g.qs.y >> shift) & 0x0f0f0f0fu, scale, offset);
}

#include "matmul_coopmat_body.glsl"
