#version 450
// Tiled matmul over F32 weights (prefill: matmul on devices without cooperative matrix).
#extension GL_GOOGLE_include_directive : require

#include "matmul_weights_f32.glsl"
#include "matmul_body.glsl"
