#version 450
// Tiled matmul over Q6_K weights through cooperative matrices (prefill: matmul where the
// device and the compiler allow it), 32 weights per group decoded straight to f16 (see
// matmul_weights_q6_k32.glsl and docs/GPU_FIGURES.md).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require

#include "matmul_weights_q6_k32.glsl"
#include "matmul_coopmat_body.glsl"
