#version 450
// Tiled matmul over F16 weights (prefill: matmul on devices without cooperative matrix).
#extension GL_GOOGLE_include_directive : require

#include "matmul_weights_f16.glsl"
#include "matmul_body.glsl"
