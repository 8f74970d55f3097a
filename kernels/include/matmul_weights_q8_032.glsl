// Matmul weight source for Q8_0 in groups of 32 weights, for the cooperative-matrix kernel:
// one group is a whole block (f16 d, 32 int8), read as 32-bit words although blocks are 34
// bytes and so only 2-byte aligned: an odd block starts half a word in (its d in the upper
// half of the word it shares with the block before), where its quants then start on a word;
// an even block's quants are joined from word halves, and its last two bytes are read as a
// 16-bit word, so that no read passes the block's end (nor the binding's). The weights come
// out as f16 in k_order (f16_bytes.glsl): q * d, each rounded once, as the f16 rounding of
// the exact weight. Needs K steps that are multiples of 32 (the op builder checks) and a slice
// that starts on 4 bytes. Contract: matmul_weights_f32.glsl.
#ifndef PB_MATMUL_WEIGHTS_GLSL
#define PB_MATMUL_WEIGHTS_GLSL

#include "matmul_weights_words.glsl"
#include "q8_0_words.glsl"

struct WeightGroup {
  uint words[9];  // the aligned words covering the block
  bool odd;       // the block starts 2 bytes into words[0]
};

// Weights row[k .. k+31] of the bound slice, k a multiple of 32 (block k / 32 of the row).
WeightGroup matmul_fetch_group(uint row, uint k, uint cols) {
  const uint byte = (row * (cols / 32) + k / 32) * 34;
  const uint first = byte / 4;
  WeightGroup g;
  [[unroll]] for (uint j = 0; j < 8; ++j) g.words[j] = w[first + j];
  g.odd = (byte & 2u) != 0u;
  if (g.odd) {
    g.words[8] = w[first + 8];
  } else {
    g.words[8] = uint(w16[2 * first + 16]);  // bytes 32 and 33, the block's last
  }
  return g;
}

WeightGroup matmul_zero_group() {
  WeightGroup g;
  [[unroll]] for (uint j = 0; j < 9; ++j) g.words[j] = 0u;
  g.odd = false;
  return g;
}

// The group's weights in k_order, four per f16vec4.
#define MATMUL_DECODE_F16
void matmul_decode_f16(WeightGroup g, uint k, out f16vec4 v[MATMUL_GROUP / 4]) {
  const float16_t d = float16_t(dq_half(q8_0_scale_bits(g.words[0], g.odd)));
  [[unroll]] for (uint m = 0; m < 8; ++m) v[m] = signed_bytes_f16(q8_0_quant_word(g.words[m], g.words[m + 1], g.odd), d);
}

#endif
