// Matmul weight source for Q6_K in groups of 32 weights, for the cooperative-matrix kernel:
// 32 consecutive weights of a block share their ql nibble half and qh bit pair and lie in 32
// consecutive bytes of each, under two int8 scales. Blocks are 210 bytes and so only 2-byte
// aligned: both runs are read as nine 32-bit words from the word that holds their first byte
// and, in an odd block, joined from word halves. Nine words never pass the block (ql is
// followed by qh, qh by the scales, and an odd block's first word begins in the block before).
// The weights come out as f16 in k_order (f16_bytes.glsl): (q - 32) * (d scale) with d scale
// rounded to f16 (2^-11 relative, within the kernel's f16 rounding) and each weight rounded
// once. Needs K steps that are multiples of 32 (the op builder checks) and a slice that starts
// on 4 bytes. Contract: matmul_weights_f32.glsl.
#ifndef PB_MATMUL_WEIGHTS_GLSL
#define PB_MATMUL_WEIGHTS_GLSL

#include "matmul_weights_words.glsl"

struct WeightGroup {
  uint ql[9], qh[9];  // the words holding the group's 32 ql and 32 qh bytes
  uint scales;        // the group's two int8 scales (one per 16 weights)
  uint d;             // f16 super-block scale
  bool odd;           // the runs start 2 bytes into ql[0] and qh[0]
};

// Weights row[k .. k+31] of the bound slice, k a multiple of 32.
WeightGroup matmul_fetch_group(uint row, uint k, uint cols) {
  const uint block = (row * (cols / 256) + k / 256) * 210;  // its first byte
  const uint i = k % 256;
  const uint ql = (block + dq_q6_k_ql_byte(i)) / 4, qh = (block + 128 + dq_q6_k_qh_byte(i)) / 4;
  WeightGroup g;
  [[unroll]] for (uint j = 0; j < 9; ++j) {
    g.ql[j] = w[ql + j];
    g.qh[j] = w[qh + j];
  }
  g.scales = uint(w16[(block + 192 + dq_q6_k_scale_index(i)) / 2]);
  g.d = uint(w16[(block + 208) / 2]);
  g.odd = (block & 2u) != 0u;
  return g;
}

WeightGroup matmul_zero_group() {
  WeightGroup g;
  [[unroll]] for (uint j = 0; j < 9; ++j) {
    g.ql[j] = 0u;
    g.qh[j] = 0u;
  }
  g.scales = 0u;
  g.d = 0u;
  g.odd = false;
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
    const uint q = ((joined_word(g.ql[m], g.ql[m + 1], g.odd) >> low_shift) & 0x0f0f0f0fu) |
                   (((joined_word(g.qh[m], g.qh[m + 1], g.odd) >> high_shift) & 0x03030303u) << 4);
    const float16_t s = m < 4 ? s0 : s1;
    v[m] = unsigned_bytes_f16(q, s, s * 32.0hf);  // (q - 32) s, rounded once
  }
}

#endif
