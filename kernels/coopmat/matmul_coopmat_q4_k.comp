#version 450
// Tiled matmul over Q4_K weights through cooperative matrices (prefill: matmul where the
// device and the compiler allow it), in groups of whole sub-blocks decoded straight to f16:
// through groups of 8 and float, the decode alone took most of the kernel's time (see
// docs/GPU_FIGURES.md).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require

#include "matmul_weights_q4_k32.glsl"
#include "matmul_coopmat_body.glsl"
