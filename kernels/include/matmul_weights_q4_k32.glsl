// Matmul weight source for Q4_K in groups of 32 weights, for the cooperative-matrix kernel:
// one group is a whole sub-block (one scale and min, 32 nibbles: the low or high halves of
// 32 consecutive qs bytes), so its header is decoded once per 32 weights instead of once per
// 8, and a group takes three 16-byte loads. The weights come out as f16 in k_order
// (f16_bytes.glsl): q * (d sc) - dmin m with d sc and dmin m rounded to f16 (2^-11 relative,
// within the kernel's f16 rounding) and each weight rounded once. Needs K steps that are
// multiples of 32 (the op builder checks). Contract: matmul_weights_f32.glsl.
#ifndef PB_MATMUL_WEIGHTS_GLSL
#define PB_MATMUL_WEIGHTS_GLSL

#include "dequant.glsl"
#include "f16_bytes.glsl"

#define MATMUL_GROUP 32

layout(binding = 0) readonly buffer W { uvec4 w4[]; };  // 9 per block: header, then 8 of qs

struct WeightGroup {
  uvec4 header;    // f16 d | f16 dmin << 16, then the 12 scale bytes
  uvec4 qs0, qs1;  // the 32 qs bytes holding the sub-block's nibbles
};

// Weights row[k .. k+31] of the bound slice, k a multiple of 32 (sub-block (k % 256) / 32).
WeightGroup matmul_fetch_group(uint row, uint k, uint cols, uint rows) {
  const uint block = row * (cols / 256) + k / 256;
  const uint qs = block * 9 + 1 + ((k % 256) >> 6) * 2;  // sub-blocks 2m and 2m + 1 share 32 bytes
  return WeightGroup(w4[block * 9], w4[qs], w4[qs + 1]);
}

WeightGroup matmul_zero_group() { return WeightGroup(uvec4(0u), uvec4(0u), uvec4(0u)); }

// The group's weights in k_order, four per f16vec4.
#define MATMUL_DECODE_F16
void matmul_decode_f16(WeightGroup g, uint k, out f16vec4 v[MATMUL_GROUP / 4]) {
  const uint i = k % 256;
  const float d = dq_half(g.header.x & 0xffffu), dmin = dq_half(g.header.x >> 16);
  const uvec2 sm = dq_q4_k_scale_min(g.header.yzw, i >> 5);
  const float16_t scale = float16_t(d * float(sm.x)), offset = float16_t(dmin * float(sm.y));
  const uint shift = dq_q4_k_qs_shift(i);
  const uint words[8] = uint[8](g.qs0.x, g.qs0.y, g.qs0.z, g.qs0.w, g.qs1.x, g.qs1.y, g.qs1.z, g.qs1.w);
  [[unroll]] for (uint j = 0; j < 8; ++j) v[j] = unsigned_bytes_f16((words[j] >> shift) & 0x0f0f0f0fu, scale, offset);
}

#endif
