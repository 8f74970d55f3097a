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
uint word_at(uint byte, uint lo, uint hi) { return (byte & 2u) == 0u ? lo : (lo >> 16) | (hi << 16); }

WeightChunk load_weights(uint row, uint chunk) {
  const uint row_bytes = (pc.cols / 32u) * 34u;
  const uint block_byte = row * row_bytes + (chunk >> 1) * 34u;
  const uint q_byte = block_byte + 2u + 16u * (chunk & 1u);
  const uint i = q_byte >> 2;
  // The fifth word is only needed when the quants are not word-aligned; clamped so that the
  // last block of the binding never reads past it.
  const uint last = (pc.rows * row_bytes >> 2) - 1u;
  const uint u0 = w[i], u1 = w[i + 1], u2 = w[i + 2], u3 = w[i + 3], u4 = w[min(i + 4u, last)];
  WeightChunk c;
  c.q = uvec4(word_at(q_byte, u0, u1), word_at(q_byte, u1, u2), word_at(q_byte, u2, u3),
              word_at(q_byte, u3, u4));
  const uint d_word = w[block_byte >> 2];
  c.d = unpackHalf2x16((block_byte & 2u) == 0u ? d_word : d_word >> 16).x;
  return c;
}

XChunk load_x(uint c, uint chunk) {
  XChunk x;
  x.q = x_quants(c, chunk);
  x.d = x_scales(c, chunk >> 1).x;
  return x;
}

float chunk_dot(WeightChunk w, XChunk x) { return (w.d * x.d) * float(dot16(w.q, x.q)); }
