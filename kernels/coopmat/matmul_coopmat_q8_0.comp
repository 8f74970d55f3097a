#version 450
// Tiled matmul over Q8_0 weights through cooperative matrices (prefill: matmul where the
// device and the compiler allow it).
#extension GL_GOOGLE_include_directive : require

#include "matmul_weights_q8_0.glsl"
#include "matmul_coopmat_body.glsl"
