#version 450
// Tiled matmul over Q6_K weights through cooperative matrices (prefill: matmul where the
// device and the compiler allow it).
#extension GL_GOOGLE_include_directive : require

#include "matmul_weights_q6_k.glsl"
#include "matmul_coopmat_body.glsl"
