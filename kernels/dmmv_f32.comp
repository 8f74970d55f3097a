#version 450
// DMMV over F32 weights. A slot is 8 weights, two 16-byte loads.
#extension GL_GOOGLE_include_directive : require

#define WEIGHTS_PER_SLOT 8
#define SLOTS_PER_BLOCK 1
#define BLOCKS_PER_ROW(cols) ((cols) / 8)

layout(binding = 0) readonly buffer W { vec4 w[]; };

#include "dmmv_body.glsl"

void accumulate_slot(uint r, uint row, uint block, uint slot) {
  const uint at = (row * BLOCKS_PER_ROW(pc.cols) + block) * 2;
  const vec4 a = w[at], b = w[at + 1];
  const uint k = block * 8;
  const uint ncols = active_cols();
  for (int c = 0; c < NUM_COLS; ++c) {
    if (uint(c) >= ncols) break;
    acc[r * NUM_COLS + c] += dot(a, x_at(c, k)) + dot(b, x_at(c, k + 4));
  }
}
