#version 450
// The experts' tiled matmul through cooperative matrices over stacked Q8_0 weights (prefill of a
// MoE layer where the device has them; include/matmul_tile_io.glsl, MOE_MATMUL).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require

#define MOE_MATMUL
#include "matmul_weights_q8_032.glsl"
#include "matmul_coopmat_body.glsl"
