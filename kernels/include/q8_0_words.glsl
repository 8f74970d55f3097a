// A Q8_0 block (f16 d, then 32 int8 quants: 34 bytes) read as 32-bit words, for the kernels
// that read whole blocks (dmmv_intdot_q8_032.glsl, matmul_weights_q8_032.glsl; the half-block
// DMMV keeps its own, measured, dmmv_intdot_q8_0.glsl). In a row whose start
// is on 4 bytes an odd block starts 2 bytes into a word, so d is that word's upper half and the
// quants are word-aligned after it. An even block starts on a word: d is the lower half and the
// quants start 2 bytes in, joined across words.
#ifndef PB_Q8_0_WORDS_GLSL
#define PB_Q8_0_WORDS_GLSL

#include "joined_word.glsl"

// The bits of the block's f16 scale, from the word holding its first byte.
uint q8_0_scale_bits(uint first_word, bool odd) { return odd ? first_word >> 16 : first_word & 0xffffu; }

// Quants 4m .. 4m + 3 of the block, from words m and m + 1 of the words covering it (word 0
// holds the block's first byte).
uint q8_0_quant_word(uint word_m, uint next_word, bool odd) {
  return odd ? next_word : joined_word(word_m, next_word, true);
}

#endif
