#version 450
// DMMV over Q8_0 weights (34-byte blocks of 32: f16 d, 32 int8). Blocks are 2-byte aligned,
// so the weights are read as 16-bit words. A slot is 8 weights.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

#define WEIGHTS_PER_SLOT 8
#define SLOTS_PER_BLOCK 4
#define BLOCKS_PER_ROW(cols) ((cols) / 32)

layout(binding = 0) readonly buffer W { uint16_t w[]; };  // 17 half-words per block

#include "dmmv_body.glsl"

vec2 int8_pair(uint16_t h) {
  const int v = int(uint(h));
  return vec2(float((v << 24) >> 24), float((v << 16) >> 24));
}

void accumulate_slot(uint r, uint row, uint block, uint slot) {
  const uint base = (row * BLOCKS_PER_ROW(pc.cols) + block) * 17;
  const float d = unpackHalf2x16(uint(w[base])).x;
  const uint q = base + 1 + slot * 4;
  const vec4 a = vec4(int8_pair(w[q]), int8_pair(w[q + 1]));
  const vec4 b = vec4(int8_pair(w[q + 2]), int8_pair(w[q + 3]));
  const uint k = block * 32 + slot * 8;
  const uint ncols = active_cols();
  for (int c = 0; c < NUM_COLS; ++c) {
    if (uint(c) >= ncols) break;
    acc[r * NUM_COLS + c] += d * (dot(a, x_at(c, k)) + dot(b, x_at(c, k + 4)));
  }
}
