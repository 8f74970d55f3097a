// The Q4_K weight format as the DMMV bodies see it (dmmv_body.glsl, moe_dmmv_body.glsl):
// slot geometry and the weight binding (included before the body, with
// DMMV_FORMAT_DECLARATIONS_ONLY defined), then accumulate_slot() (included after it; the body
// declares acc, pc, x_at and FOR_EACH_COLUMN).
//
// A block is 144 bytes = 9 uvec4: the first holds d, dmin and the 12 bytes of packed 6-bit
// scales and mins; the other 8 hold 128 bytes of nibbles. A slot is 32 weights: 16 bytes of
// nibbles (one uvec4 load) of a 64-weight group j, their low nibbles in sub-block 2j and their
// high nibbles in 2j+1. The weights are dequantized once per slot and then dotted with every
// column, so the per-column cost is a load and a dot per 4 weights.
#ifdef DMMV_FORMAT_DECLARATIONS_ONLY
#define WEIGHTS_PER_SLOT 32
#define SLOTS_PER_BLOCK 8
#define BLOCKS_PER_ROW(cols) ((cols) / 256)

layout(binding = 0) readonly buffer W { uvec4 w[]; };  // 9 uvec4 per block

#include "q4_k_scale_min.glsl"

vec4 q4k_nibbles(uint word, uint shift) {
  return vec4((word >> shift) & 0xfu, (word >> (shift + 8u)) & 0xfu, (word >> (shift + 16u)) & 0xfu,
              (word >> (shift + 24u)) & 0xfu);
}
#else
void accumulate_slot(uint r, uint row, uint block, uint slot) {
  const uint base = (row * BLOCKS_PER_ROW(pc.cols) + block) * 9;
  const uvec4 header = w[base];
  const uint j = slot >> 1;           // group of 64 weights
  const uint half_ = slot & 1u;       // which 16 of its 32 bytes
  const uvec4 q = w[base + 1 + j * 2 + half_];
  const vec2 dm = unpackHalf2x16(header.x);
  const vec2 lo = q4k_scale_min(2u * j, header) * dm;       // (d * scale, dmin * min)
  const vec2 hi = q4k_scale_min(2u * j + 1u, header) * dm;
  // Weight i of a byte's low nibble sits at 64j + 16 half + i, its high nibble 32 further.
  const vec4 w0 = q4k_nibbles(q.x, 0u) * lo.x - lo.y, w1 = q4k_nibbles(q.y, 0u) * lo.x - lo.y;
  const vec4 w2 = q4k_nibbles(q.z, 0u) * lo.x - lo.y, w3 = q4k_nibbles(q.w, 0u) * lo.x - lo.y;
  const vec4 v0 = q4k_nibbles(q.x, 4u) * hi.x - hi.y, v1 = q4k_nibbles(q.y, 4u) * hi.x - hi.y;
  const vec4 v2 = q4k_nibbles(q.z, 4u) * hi.x - hi.y, v3 = q4k_nibbles(q.w, 4u) * hi.x - hi.y;
  const uint k = block * 256 + j * 64 + half_ * 16;
  FOR_EACH_COLUMN(c, acc[r * NUM_COLS + c] +=
                         dot(w0, x_at(c, k)) + dot(w1, x_at(c, k + 4)) + dot(w2, x_at(c, k + 8)) +
                         dot(w3, x_at(c, k + 12)) + dot(v0, x_at(c, k + 32)) + dot(v1, x_at(c, k + 36)) +
                         dot(v2, x_at(c, k + 40)) + dot(v3, x_at(c, k + 44)));
}
#endif
