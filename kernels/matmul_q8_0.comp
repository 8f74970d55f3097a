#version 450
// Tiled matmul over Q8_0 weights (prefill: matmul on devices without cooperative matrix).
#extension GL_GOOGLE_include_directive : require

#include "matmul_weights_q8_0.glsl"
#include "matmul_body.glsl"
