#version 450
// Tiled matmul over Q8_0 weights through cooperative matrices (prefill: matmul where the
// device and the compiler allow it), a whole block per group decoded straight to f16 (see
// matmul_weights_q8_032.glsl and docs/GPU_FIGURES.md).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require

#include "matmul_weights_q8_032.glsl"
#include "matmul_coopmat_body.glsl"
