#version 450
// Tiled matmul over F16 weights through cooperative matrices (prefill: matmul where the
// device and the compiler allow it).
#extension GL_GOOGLE_include_directive : require

#include "matmul_weights_f16.glsl"
#include "matmul_coopmat_body.glsl"
