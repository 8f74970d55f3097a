// Matmul weight source for F32: eight consecutive weights of one row, two 16-byte loads.
// Needs cols a multiple of 8 (the op builder checks), so a group never straddles rows.
// The contract of every matmul_weights_<format>.glsl: matmul_fetch8 only loads (the words
// stay in flight while the step before multiplies), matmul_decode8 turns them into weights
// when the tile is stored, and matmul_zero8 holds words that decode to eight zeros.
#ifndef PB_MATMUL_WEIGHTS_GLSL
#define PB_MATMUL_WEIGHTS_GLSL

layout(binding = 0) readonly buffer W { vec4 w[]; };

struct WeightGroup8 {
  vec4 lo, hi;
};

// Weights row[k .. k+7] of the bound slice, k a multiple of 8.
WeightGroup8 matmul_fetch8(uint row, uint k, uint cols) {
  const uint at = (row * cols + k) >> 2;
  return WeightGroup8(w[at], w[at + 1]);
}

WeightGroup8 matmul_zero8() { return WeightGroup8(vec4(0.0), vec4(0.0)); }

void matmul_decode8(WeightGroup8 g, uint k, out vec4 lo, out vec4 hi) {
  lo = g.lo;
  hi = g.hi;
}

#endif
