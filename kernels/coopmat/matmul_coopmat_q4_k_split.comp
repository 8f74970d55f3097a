#version 450
// matmul_coopmat_q4_k.comp with K split across workgroups (grid z), for matrices whose few tiles
// leave most of the GPU idle (matmul_coopmat_body.glsl, MATMUL_SPLIT_K).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require

#include "matmul_weights_q4_k32.glsl"
#define MATMUL_SPLIT_K
#include "matmul_coopmat_body.glsl"
