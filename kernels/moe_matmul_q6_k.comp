#version 450
// The experts' tiled matmul over stacked Q6_K weights (prefill of a MoE layer; the tile's
// tokens are a work item's assignments: include/matmul_tile_io.glsl, MOE_MATMUL).
#extension GL_GOOGLE_include_directive : require

#define MOE_MATMUL
#include "matmul_weights_q6_k.glsl"
#include "matmul_body.glsl"
