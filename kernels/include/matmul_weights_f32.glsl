// Matmul weight source for F32: eight consecutive weights of one row, two 16-byte loads.
// Needs cols a multiple of 8 (the op builder checks), so a group never straddles rows.
// The contract of every matmul_weights_<format>.glsl: a WeightGroup holds the raw words of 8
// consecutive weights of a row; matmul_fetch_group only loads them (so that the words can stay
// in flight while the step before multiplies; `rows`, the rows bound, locates Q6_K's scales in a
// tensor's last group of rows), matmul_decode8 turns them into weights when the
// tile is stored, and matmul_zero_group holds words that decode to zeros. A file made for one kernel
// may use wider groups (MATMUL_GROUP) with a decode of its own (matmul_weights_q4_k32.glsl).
#ifndef PB_MATMUL_WEIGHTS_GLSL
#define PB_MATMUL_WEIGHTS_GLSL

layout(binding = 0) readonly buffer W { vec4 w[]; };

struct WeightGroup {
  vec4 lo, hi;
};

// Weights row[k .. k+7] of the bound slice, k a multiple of 8.
WeightGroup matmul_fetch_group(uint row, uint k, uint cols, uint rows) {
  const uint at = (row * cols + k) >> 2;
  return WeightGroup(w[at], w[at + 1]);
}

WeightGroup matmul_zero_group() { return WeightGroup(vec4(0.0), vec4(0.0)); }

void matmul_decode8(WeightGroup g, uint k, out vec4 lo, out vec4 hi) {
  lo = g.lo;
  hi = g.hi;
}

#endif
