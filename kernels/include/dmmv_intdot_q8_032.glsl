// Q8_0 for the integer-dot DMMV (dmmv_intdot_body.glsl) in chunks of a whole block: 32 int8
// weights and their f16 scale d. Against the half-block chunks of dmmv_intdot_q8_0.glsl, both
// halves' byte products sum into one integer before the one conversion and scaling per block
// and column, and the activations' scale is loaded once per block. In the device layout
// (q8_0_device_layout.glsl) a block's quants are two aligned uvec4s and d one 16-bit load.
#include "q8_0_device_layout.glsl"

#define CHUNKS_PER_ROW(cols) ((cols) / 32)

layout(binding = 0) readonly buffer W { uvec4 w_quants[]; };    // rows of cols / 32 blocks,
layout(binding = 0) readonly buffer WS { uint16_t w_scales[]; };  // in the device layout

struct WeightChunk {
  uvec4 lo, hi;  // the 32 int8 weights, 4 to a word
  float d;       // the block's scale
};

struct XChunk {
  uvec4 lo, hi;  // the 32 activation quants
  float d;       // their block's scale
};

WeightChunk load_weights(uint row, uint chunk) {
  const uint q = q8_0_quants_byte(row, pc.cols, chunk) >> 4;
  const float d = unpackHalf2x16(uint(w_scales[q8_0_scale_byte(row, pc.cols, chunk) >> 1])).x;
  return WeightChunk(w_quants[q], w_quants[q + 1u], d);
}

XChunk load_x(uint c, uint chunk) {
  XChunk x;
  x.lo = x_quants(c, 2u * chunk);
  x.hi = x_quants(c, 2u * chunk + 1u);
  x.d = x_scales(c, chunk).x;
  return x;
}

float chunk_dot(WeightChunk w, XChunk x) { return (w.d * x.d) * float(dot16(w.lo, x.lo) + dot16(w.hi, x.hi)); }
