// Q4_K for the integer-dot DMMV (dmmv_intdot_body.glsl). A block is 9 uvec4: a header (d, dmin,
// 12 bytes of 6-bit scales and mins) and 8 of nibbles. Byte l of nibble uvec4 i = 2j + h holds
// weight 64j + 16h + l in its low nibble (sub-block 2j) and weight 64j + 32 + 16h + l in its
// high nibble (sub-block 2j + 1). A chunk is the pair 2j, 2j + 1: 32 bytes, all of sub-blocks
// 2j and 2j + 1, so one header load and one scale decode serve 64 weights and both halves of
// each sub-block sum into one integer before any float work. The low nibbles, masked into bytes
// (0..15), are int8 as they are and dot with the activation quants directly; the high ones are
// masked in place (16 q, 0..240) and dot as unsigned bytes, for 16 times their sum, which the
// sub-block's scale takes back as a power of two (so the bits are those of shifting them down,
// one instruction less per word):
//   sum w x = d sc dx sum(q qx) - dmin m (dx sum qx)
// (|sum 16 q qx| <= 32 * 240 * 127, far inside int32 and exact in float).
#define CHUNKS_PER_ROW(cols) ((cols) / 256 * 4)

layout(binding = 0) readonly buffer W { uvec4 w[]; };  // 9 uvec4 per block

struct WeightChunk {
  uvec4 q0, q1;  // nibble uvec4s 2j and 2j + 1, as loaded
  vec4 scales;   // d sc and dmin m of sub-block 2j, then d sc / 16 and dmin m of 2j + 1
};

struct XChunk {
  uvec4 lo0, lo1, hi0, hi1;  // activation quants 64j + [0, 16), [16, 32), [32, 48), [48, 64)
  vec2 slo, shi;             // (d, d sum q) of their blocks of 32
};

#include "q4_k_scale_min.glsl"

WeightChunk load_weights(uint row, uint chunk) {
  const uint base = (row * (pc.cols / 256u) + (chunk >> 2)) * 9u;
  const uint j = chunk & 3u;
  const uvec4 header = w[base];
  WeightChunk c;
  c.q0 = w[base + 1u + 2u * j];
  c.q1 = w[base + 2u + 2u * j];
  const vec2 dm = unpackHalf2x16(header.x);
  const vec4 sm = q4k_scale_min_pair(j, header);  // sc 2j, sc 2j + 1, m 2j, m 2j + 1
  c.scales = vec4(sm.x * dm.x, sm.z * dm.y, sm.y * dm.x * 0.0625, sm.w * dm.y);
  return c;
}

XChunk load_x(uint c, uint chunk) {
  const uint block = chunk >> 2, j = chunk & 3u;
  const uint k16 = block * 16u + j * 4u;  // k = 256 block + 64 j
  XChunk x;
  x.lo0 = x_quants(c, k16);
  x.lo1 = x_quants(c, k16 + 1u);
  x.hi0 = x_quants(c, k16 + 2u);
  x.hi1 = x_quants(c, k16 + 3u);
  x.slo = x_scales(c, block * 8u + 2u * j);
  x.shi = x_scales(c, block * 8u + 2u * j + 1u);
  return x;
}

#ifdef DMMV_CHUNK_ADD
// acc plus the chunk's dot product, its scales applied as fused multiply-adds into acc. The
// kernels that define DMMV_CHUNK_ADD (the norm producer and the RMS reader) take this form,
// because NVIDIA's driver compiles them faster with it: on an H200 the norm producer on ffn_down
// 4096x14336 took 12.65 against 13.20 us, on attn 4096x4096 6.54 against 6.73, and the RMS
// reader on attn 6.64 against 6.88, where the plain DMMV took 13.14 against 12.41 and the GLU
// producer 22.40 against 21.33 (docs/GPU_FIGURES.md). The sums differ from chunk_dot's only by
// float rounding. Its first three lines repeat chunk_dot's rather than call a shared helper:
// written so, both forms compile to the SPIR-V that those figures and the records measured.
float chunk_add(float acc, WeightChunk w, XChunk x) {
  const uvec4 m = uvec4(0x0f0f0f0fu);
  const int lo = dot16(w.q0 & m, x.lo0, DOT_BIAS) + dot16(w.q1 & m, x.lo1);
  const int hi = dot16u(x.hi0, w.q0 & ~m, DOT_BIAS) + dot16u(x.hi1, w.q1 & ~m);  // 16 times the sum
  acc = fma(x.slo.x, w.scales.x * biased_dot_float(lo), acc);
  acc = fma(x.shi.x, w.scales.z * biased_dot_float(hi), acc);
  return fma(-w.scales.y, x.slo.y, fma(-w.scales.w, x.shi.y, acc));
}
#else
float chunk_dot(WeightChunk w, XChunk x) {
  const uvec4 m = uvec4(0x0f0f0f0fu);
  const int lo = dot16(w.q0 & m, x.lo0, DOT_BIAS) + dot16(w.q1 & m, x.lo1);
  const int hi = dot16u(x.hi0, w.q0 & ~m, DOT_BIAS) + dot16u(x.hi1, w.q1 & ~m);  // 16 times the sum
  return x.slo.x * (w.scales.x * biased_dot_float(lo)) - w.scales.y * x.slo.y +
         x.shi.x * (w.scales.z * biased_dot_float(hi)) - w.scales.w * x.shi.y;
}
#endif
