// Q4_K for the integer-dot DMMV (dmmv_intdot_body.glsl) in chunks of one sub-block: 32 weights
// with one scale and one min (the block layout is in dmmv_intdot_q4_k.glsl). Sub-block 2j is the
// low nibbles of nibble uvec4s 2j and 2j + 1, sub-block 2j + 1 their high nibbles, so two
// neighbouring threads load the same two uvec4s and mask out their halves. Against the 16-weight
// chunks (dmmv_intdot_q4_k16.glsl) a chunk's scale and min are decoded once for 32 weights,
// the two halves' products sum into one integer before the one conversion per column, and the
// activations' block scale is loaded once per column and 32 weights:
//   sum w x = d sc dx sum(q qx) - dmin m (dx sum qx)
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
  const uint shift = 4u * (sub & 1u);   // high nibbles for odd sub-blocks
  const uvec4 header = w[base];
  const uvec4 m = uvec4(0x0f0f0f0fu);
  WeightChunk c;
  c.lo = (w[base + 1u + 2u * j] >> shift) & m;
  c.hi = (w[base + 2u + 2u * j] >> shift) & m;
  c.scales = q4k_scale_min(sub, header) * unpackHalf2x16(header.x);
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
  return x.s.x * (w.scales.x * float(dot16(w.lo, x.lo) + dot16(w.hi, x.hi))) - w.scales.y * x.s.y;
}
