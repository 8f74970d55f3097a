// Q8_0 for the integer-dot DMMV (dmmv_intdot_body.glsl) in chunks of a whole block: 32 int8
// weights and their f16 scale d. Against the half-block chunks of dmmv_intdot_q8_0.glsl, both
// halves' byte products sum into one integer before the one conversion and scaling per block
// and column, the activations' scale is loaded once per block, and a block takes 9 word loads
// instead of 12. With cols a multiple of 64 every row starts on 4 bytes (q8_0_words.glsl has
// where d and the quants lie in odd and even blocks). The nine words never pass the block's end
// for odd blocks, and an even block is never a row's last, so its ninth word is the next block's.
#extension GL_EXT_control_flow_attributes : require

#include "q8_0_words.glsl"

#define CHUNKS_PER_ROW(cols) ((cols) / 32)

layout(binding = 0) readonly buffer W { uint w[]; };  // rows x (cols / 32) blocks of 34 bytes

struct WeightChunk {
  uvec4 lo, hi;  // the 32 int8 weights, 4 to a word
  float d;       // the block's scale
};

struct XChunk {
  uvec4 lo, hi;  // the 32 activation quants
  float d;       // their block's scale
};

WeightChunk load_weights(uint row, uint chunk) {
  const uint block_byte = (row * (pc.cols / 32u) + chunk) * 34u;
  const uint i = block_byte >> 2;
  uint u[9];
  [[unroll]] for (int j = 0; j < 9; ++j) u[j] = w[i + uint(j)];
  const bool odd = (block_byte & 2u) != 0u;
  uint q[8];
  [[unroll]] for (int j = 0; j < 8; ++j) q[j] = q8_0_quant_word(u[j], u[j + 1], odd);
  const float d = unpackHalf2x16(q8_0_scale_bits(u[0], odd)).x;
  return WeightChunk(uvec4(q[0], q[1], q[2], q[3]), uvec4(q[4], q[5], q[6], q[7]), d);
}

XChunk load_x(uint c, uint chunk) {
  XChunk x;
  x.lo = x_quants(c, 2u * chunk);
  x.hi = x_quants(c, 2u * chunk + 1u);
  x.d = x_scales(c, chunk).x;
  return x;
}

float chunk_dot(WeightChunk w, XChunk x) { return (w.d * x.d) * float(dot16(w.lo, x.lo) + dot16(w.hi, x.hi)); }
