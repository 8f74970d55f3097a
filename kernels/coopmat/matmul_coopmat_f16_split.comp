#version 450
// matmul_coopmat_f16.comp with K split across workgroups (grid z), for matrices whose few tiles
// leave most of the GPU idle (matmul_coopmat_body.glsl, MATMUL_SPLIT_K).
#extension GL_GOOGLE_include_directive : require

#include "matmul_weights_f16.glsl"
#define MATMUL_SPLIT_K
#include "matmul_coopmat_body.glsl"
