#version 450
// Expert DMMV (include/moe_dmmv_body.glsl) over stacked Q6_K weights
// [E][rows][cols] (210-byte blocks of 256, read as 16-bit words); the format's
// decoding is the dense DMMV's, include/dmmv_format_q6_k.glsl.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

#define DMMV_FORMAT_DECLARATIONS_ONLY
// Every expert is whole groups of 8 rows (the op checks), so no group is a short last one.
#define Q6_K_BOUND_ROWS 0xffffffffu
#include "dmmv_format_q6_k.glsl"
#undef DMMV_FORMAT_DECLARATIONS_ONLY
#include "moe_dmmv_body.glsl"
#include "dmmv_format_q6_k.glsl"
