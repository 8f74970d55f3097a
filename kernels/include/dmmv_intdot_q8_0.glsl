// Q8_0 for the integer-dot DMMV (dmmv_intdot_body.glsl): a chunk is half a block, 16 int8
// weights and the block's f16 scale d. In the device layout (q8_0_device_layout.glsl) the
// 16 quants are one aligned uvec4 and d one 16-bit load from the row's scales.
#include "q8_0_device_layout.glsl"

#define CHUNKS_PER_ROW(cols) ((cols) / 16)

layout(binding = 0) readonly buffer W { uvec4 w_quants[]; };    // rows of cols / 32 blocks,
layout(binding = 0) readonly buffer WS { uint16_t w_scales[]; };  // in the device layout

struct WeightChunk {
  uvec4 q;  // 16 int8 weights, 4 to a word
  float d;  // the block's scale
};

struct XChunk {
  uvec4 q;  // the 16 activation quants
  float d;  // their block's scale
};

// The loaded words of a chunk (the cooperative-matrix kernel decodes them later, after its
// products: dmmv_coopmat_q8_0.comp).
struct WeightRaw {
  uvec4 q;      // the chunk's 16 quants
  uint d_bits;  // the bits of the block's f16 scale
};

WeightRaw fetch_chunk(uint row, uint chunk) {
  const uint block = chunk >> 1;
  return WeightRaw(w_quants[(q8_0_quants_byte(row, pc.cols, block) >> 4) + (chunk & 1u)],
                   uint(w_scales[q8_0_scale_byte(row, pc.cols, block) >> 1]));
}

// Quants 4j .. 4j + 3 of the chunk, and the bits of its f16 scale.
uint chunk_quant_word(WeightRaw raw, uint j) { return raw.q[j]; }
uint chunk_scale_bits(WeightRaw raw) { return raw.d_bits; }

WeightChunk load_weights(uint row, uint chunk) {
  const WeightRaw raw = fetch_chunk(row, chunk);
  return WeightChunk(raw.q, unpackHalf2x16(raw.d_bits).x);
}

XChunk load_x(uint c, uint chunk) {
  XChunk x;
  x.q = x_quants(c, chunk);
  x.d = x_scales(c, chunk >> 1).x;
  return x;
}

float chunk_dot(WeightChunk w, XChunk x) { return (w.d * x.d) * float(dot16(w.q, x.q)); }
