#version 450
// DMMV over F16 weights. A slot is 8 weights, one 16-byte load.
#extension GL_GOOGLE_include_directive : require

#define WEIGHTS_PER_SLOT 8
#define SLOTS_PER_BLOCK 1
#define BLOCKS_PER_ROW(cols) ((cols) / 8)

layout(binding = 0) readonly buffer W { uvec4 w[]; };

#include "dmmv_body.glsl"

void accumulate_slot(uint r, uint row, uint block, uint slot) {
  const uvec4 q = w[row * BLOCKS_PER_ROW(pc.cols) + block];
  const vec4 a = vec4(unpackHalf2x16(q.x), unpackHalf2x16(q.y));
  const vec4 b = vec4(unpackHalf2x16(q.z), unpackHalf2x16(q.w));
  const uint k = block * 8;
  const uint ncols = active_cols();
  for (int c = 0; c < NUM_COLS; ++c) {
    if (uint(c) >= ncols) break;
    acc[r * NUM_COLS + c] += dot(a, x_at(c, k)) + dot(b, x_at(c, k + 4));
  }
}
