// Matmul weight source for F16: eight consecutive weights of one row, one 16-byte load.
// Needs cols a multiple of 8 (the op builder checks). unpackHalf2x16 may flush f16 subnormal
// weights on some devices; such a weight is below 6.1e-5, inside the test tolerance.
#ifndef PB_MATMUL_WEIGHTS_GLSL
#define PB_MATMUL_WEIGHTS_GLSL

layout(binding = 0) readonly buffer W { uvec4 w[]; };

// Weights row[k .. k+7] of the bound slice, k a multiple of 8.
void matmul_weights8(uint row, uint k, uint cols, out vec4 lo, out vec4 hi) {
  const uvec4 q = w[(row * cols + k) >> 3];
  lo = vec4(unpackHalf2x16(q.x), unpackHalf2x16(q.y));
  hi = vec4(unpackHalf2x16(q.z), unpackHalf2x16(q.w));
}

#endif
