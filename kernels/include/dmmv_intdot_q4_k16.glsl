// Q4_K for the integer-dot DMMV (dmmv_intdot_body.glsl) in chunks of 16 weights: the layout for
// several columns. A chunk is one nibble half of one nibble uvec4 (the block layout is in
// dmmv_intdot_q4_k.glsl), and chunk q of a row holds weights 16q .. 16q + 15, so consecutive
// threads read consecutive uvec4s of activation quants: one warp load covers 512 contiguous
// bytes. The 64-weight chunks of dmmv_intdot_q4_k.glsl put 64 bytes between neighbouring
// threads' activations, so each of their four activation loads touches four times the cache
// lines, once per column: at eight columns those loads, not the weights, bound the kernel.
// Here each sub-block is split between two threads, which both decode its scale; the one
// holding its first 16 weights also subtracts its min:
//   sum w x = d sc dx sum(q qx) - dmin m (dx sum qx)
// with the block sum dx sum qx of all 32 activations (quantize_x stores it).
#define CHUNKS_PER_ROW(cols) ((cols) / 16)

layout(binding = 0) readonly buffer W { uvec4 w[]; };  // 9 uvec4 per block

struct WeightChunk {
  uvec4 q;      // 16 nibbles masked into bytes
  vec2 scales;  // d sc, and dmin m for the sub-block's first half (0 for its second)
};

struct XChunk {
  uvec4 q;  // the 16 activation quants
  vec2 s;   // (d, d sum q) of their block of 32
};

#include "q4_k_scale_min.glsl"

// The loaded words of a chunk, for the cooperative-matrix kernel, which decodes them after its
// products (dmmv_coopmat_q4_k.comp). Chunk bits: 0, which nibble uvec4 of the pair 2j, 2j + 1;
// 1, low or high nibbles (sub-block 2j or 2j + 1); 2..3, j; the rest, the block.
struct WeightRaw {
  uvec4 header;  // the block's d, dmin and packed scales
  uvec4 packed;  // the nibble uvec4 holding the chunk
};

WeightRaw fetch_chunk(uint row, uint chunk) {
  const uint base = (row * (pc.cols / 256u) + (chunk >> 4)) * 9u;
  return WeightRaw(w[base], w[base + 1u + 2u * ((chunk >> 2) & 3u) + (chunk & 1u)]);
}

// The chunk's 16 nibbles, one to a byte.
uvec4 chunk_nibbles(WeightRaw raw, uint chunk) {
  return (raw.packed >> (4u * ((chunk >> 1) & 1u))) & uvec4(0x0f0f0f0fu);
}

// (d sc, dmin m) of the chunk's sub-block: weight i is d sc q[i] - dmin m.
vec2 chunk_scale_min(WeightRaw raw, uint chunk) {
  const uint sub = 2u * ((chunk >> 2) & 3u) + ((chunk >> 1) & 1u);  // 0..7
  return q4k_scale_min(sub, raw.header) * unpackHalf2x16(raw.header.x);
}

// The same decode written out rather than through fetch_chunk and the helpers above: through
// them NVIDIA's driver (580) compiled this kernel differently, and 4 columns of ffn_down
// 4096x14336 took 26.6 instead of 23.7 us (H200).
WeightChunk load_weights(uint row, uint chunk) {
  const uint base = (row * (pc.cols / 256u) + (chunk >> 4)) * 9u;
  const uint s = chunk & 3u;          // which 16 of the pair of sub-blocks 2j, 2j + 1
  const uint j = (chunk >> 2) & 3u;
  const uint high = s >> 1;           // high nibbles: sub-block 2j + 1
  const uint sub = 2u * j + high;     // sub-block, 0..7
  const uvec4 header = w[base];
  const uvec4 packed = w[base + 1u + 2u * j + (s & 1u)];
  WeightChunk c;
  c.q = (packed >> (4u * high)) & uvec4(0x0f0f0f0fu);
  const vec2 sm = q4k_scale_min(sub, header) * unpackHalf2x16(header.x);  // (d sc, dmin m)
  c.scales = vec2(sm.x, (s & 1u) == 0u ? sm.y : 0.0);  // the min once per sub-block
  return c;
}

XChunk load_x(uint c, uint chunk) {
  XChunk x;
  x.q = x_quants(c, chunk);
  x.s = x_scales(c, chunk >> 1);
  return x;
}

float chunk_dot(WeightChunk w, XChunk x) {
  return x.s.x * (w.scales.x * biased_dot_float(dot16(w.q, x.q, DOT_BIAS))) - w.scales.y * x.s.y;
}
