// Matmul weight source for F32: eight consecutive weights of one row, two 16-byte loads.
// Needs cols a multiple of 8 (the op builder checks), so a group never straddles rows.
#ifndef PB_MATMUL_WEIGHTS_GLSL
#define PB_MATMUL_WEIGHTS_GLSL

layout(binding = 0) readonly buffer W { vec4 w[]; };

// Weights row[k .. k+7] of the bound slice, k a multiple of 8.
void matmul_weights8(uint row, uint k, uint cols, out vec4 lo, out vec4 hi) {
  const uint at = (row * cols + k) >> 2;
  lo = w[at];
  hi = w[at + 1];
}

#endif
