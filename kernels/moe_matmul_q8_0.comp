#version 450
// The experts' tiled matmul over stacked Q8_0 weights (prefill of a MoE layer; the tile's
// tokens are a work item's assignments: include/matmul_tile_io.glsl, MOE_MATMUL).
#extension GL_GOOGLE_include_directive : require

#define MOE_MATMUL
#include "matmul_weights_q8_0.glsl"
#include "matmul_body.glsl"
