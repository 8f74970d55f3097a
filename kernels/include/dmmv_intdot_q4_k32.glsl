// Q4_K for the integer-dot DMMV (dmmv_intdot_body.glsl) in chunks of one sub-block: 32 weights
// with one scale and one min (the block layout is in dmmv_intdot_q4_k.glsl). Sub-block 2j is the
// low nibbles of nibble uvec4s 2j and 2j + 1, sub-block 2j + 1 their high nibbles, so two
// neighbouring threads load the same two uvec4s and mask out their halves. Against the 16-weight
// chunks (dmmv_intdot_q4_k16.glsl) a chunk's scale and min are decoded once for 32 weights,
// the two halves' products sum into one integer before the one conversion per column, and the
// activations' block scale is loaded once per column and 32 weights:
//   sum w x = d sc dx sum(q qx) - dmin m (dx sum qx)
// The high nibbles dot in place, masked but not shifted, to 16 times their sum, and d sc takes
// the 1/16 (exact). With the shifts and the biased sums (dmmv_intdot_common.glsl) the driver gave
// the 8-column kernel on ffn_down 4096x14336 70 registers and it took 45.5 us; in place, 64
// registers and 29.0 us (H200; main's shifted form without the bias: 64 and 29.1).
#define CHUNKS_PER_ROW(cols) ((cols) / 32)

layout(binding = 0) readonly buffer W { uvec4 w[]; };  // 9 uvec4 per block

struct WeightChunk {
  uvec4 lo, hi;  // weights 0..15 and 16..31 of the sub-block, one nibble to a byte
  vec2 scales;   // d sc and dmin m
};

struct XChunk {
  uvec4 lo, hi;  // the 32 activation quants
  vec2 s;        // (d, d sum q) of their block of 32
};

#include "q4_k_scale_min.glsl"

WeightChunk load_weights(uint row, uint chunk) {
  const uint base = (row * (pc.cols / 256u) + (chunk >> 3)) * 9u;
  const uint sub = chunk & 7u;          // sub-block, 0..7
  const uint j = sub >> 1;              // its pair of nibble uvec4s
  const bool high = (sub & 1u) != 0u;   // high nibbles for odd sub-blocks, dotted in place
  const uvec4 header = w[base];
  const uvec4 m = uvec4(high ? 0xf0f0f0f0u : 0x0f0f0f0fu);
  WeightChunk c;
  c.lo = w[base + 1u + 2u * j] & m;
  c.hi = w[base + 2u + 2u * j] & m;
  c.scales = q4k_scale_min(sub, header) * unpackHalf2x16(header.x);
  c.scales.x *= high ? 0.0625 : 1.0;  // in place the high nibbles dot to 16 times their sum
  return c;
}

XChunk load_x(uint c, uint chunk) {
  XChunk x;
  x.lo = x_quants(c, 2u * chunk);
  x.hi = x_quants(c, 2u * chunk + 1u);
  x.s = x_scales(c, chunk);
  return x;
}

float chunk_dot(WeightChunk w, XChunk x) {
  return x.s.x * (w.scales.x * biased_dot_float(dot16u(x.lo, w.lo, DOT_BIAS) + dot16u(x.hi, w.hi))) - w.scales.y * x.s.y;
}
