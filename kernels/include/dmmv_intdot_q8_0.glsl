// Q8_0 for the integer-dot DMMV (dmmv_intdot_body.glsl): a chunk is half a block, 16 int8
// weights and the block's f16 scale d. The 34-byte blocks are read as 32-bit words (half the
// load instructions of 16-bit reads): with cols a multiple of 64 every row starts on 4 bytes,
// odd blocks' quants are word-aligned and even blocks' start 2 bytes into a word, which five
// words and a 16-bit shift cover.
#define CHUNKS_PER_ROW(cols) ((cols) / 16)

layout(binding = 0) readonly buffer W { uint w[]; };  // rows x (cols / 32) blocks of 34 bytes

struct WeightChunk {
  uvec4 q;  // 16 int8 weights, 4 to a word
  float d;  // the block's scale
};

struct XChunk {
  uvec4 q;  // the 16 activation quants
  float d;  // their block's scale
};

// Bytes at `byte` (even) to byte + 3, from words `lo` (holding `byte`) and `hi` (the next).
// The same join as q8_0_words.glsl's, kept written out here: through those helpers this
// one-column kernel took 19.3 instead of 19.0 us on ffn_down 4096x14336 (H200, medians of 5,
// two rounds), with the same register count.
uint word_at(uint byte, uint lo, uint hi) { return (byte & 2u) == 0u ? lo : (lo >> 16) | (hi << 16); }

// The loaded words of a chunk (the cooperative-matrix kernel decodes them later, after its
// products: dmmv_coopmat_q8_0.comp).
struct WeightRaw {
  uint u[5];       // the words covering the chunk's 16 quants
  uint d_word;     // the word holding the block's scale
  uint odd_bytes;  // bit 1: the quants start 2 bytes into u[0]; bit 0: d in the upper half
};

WeightRaw fetch_chunk(uint row, uint chunk) {
  const uint row_bytes = (pc.cols / 32u) * 34u;
  const uint block_byte = row * row_bytes + (chunk >> 1) * 34u;
  const uint q_byte = block_byte + 2u + 16u * (chunk & 1u);
  const uint i = q_byte >> 2;
  // The fifth word is only needed when the quants are not word-aligned; clamped so that the
  // last block of the binding never reads past it.
  const uint last = (pc.rows * row_bytes >> 2) - 1u;
  WeightRaw r;
  r.u = uint[5](w[i], w[i + 1], w[i + 2], w[i + 3], w[min(i + 4u, last)]);
  r.d_word = w[block_byte >> 2];
  r.odd_bytes = (q_byte & 2u) | ((block_byte >> 1) & 1u);
  return r;
}

// Quants 4j .. 4j + 3 of the chunk, and the bits of its f16 scale.
uint chunk_quant_word(WeightRaw raw, uint j) { return word_at(raw.odd_bytes & 2u, raw.u[j], raw.u[j + 1]); }
uint chunk_scale_bits(WeightRaw raw) { return ((raw.odd_bytes & 1u) == 0u ? raw.d_word : raw.d_word >> 16) & 0xffffu; }

WeightChunk load_weights(uint row, uint chunk) {
  const WeightRaw raw = fetch_chunk(row, chunk);
  return WeightChunk(uvec4(chunk_quant_word(raw, 0), chunk_quant_word(raw, 1), chunk_quant_word(raw, 2),
                           chunk_quant_word(raw, 3)),
                     unpackHalf2x16(chunk_scale_bits(raw)).x);
}

XChunk load_x(uint c, uint chunk) {
  XChunk x;
  x.q = x_quants(c, chunk);
  x.d = x_scales(c, chunk >> 1).x;
  return x;
}

float chunk_dot(WeightChunk w, XChunk x) { return (w.d * x.d) * float(dot16(w.q, x.q)); }
