#version 450
// Tiled matmul over Q6_K weights (prefill: matmul on devices without cooperative matrix).
#extension GL_GOOGLE_include_directive : require

#include "matmul_weights_q6_k.glsl"
#include "matmul_body.glsl"
