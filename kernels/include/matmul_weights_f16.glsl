// Matmul weight source for F16: eight consecutive weights of one row, one 16-byte load.
// Needs cols a multiple of 8 (the op builder checks). unpackHalf2x16 may flush f16 subnormal
// weights on some devices; such a weight is below 6.1e-5, inside the test tolerance.
// Contract: matmul_weights_f32.glsl.
#ifndef PB_MATMUL_WEIGHTS_GLSL
#define PB_MATMUL_WEIGHTS_GLSL

layout(binding = 0) readonly buffer W { uvec4 w[]; };

struct WeightGroup {
  uvec4 q;  // eight f16
};

// Weights row[k .. k+7] of the bound slice, k a multiple of 8.
WeightGroup matmul_fetch_group(uint row, uint k, uint cols, uint rows) { return WeightGroup(w[(row * cols + k) >> 3]); }

WeightGroup matmul_zero_group() { return WeightGroup(uvec4(0u)); }

void matmul_decode8(WeightGroup g, uint k, out vec4 lo, out vec4 hi) {
  lo = vec4(unpackHalf2x16(g.q.x), unpackHalf2x16(g.q.y));
  hi = vec4(unpackHalf2x16(g.q.z), unpackHalf2x16(g.q.w));
}

#endif
