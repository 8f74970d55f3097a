#version 450
// Expert DMMV (include/moe_dmmv_body.glsl) over stacked Q8_0 weights
// [E][rows][cols] (34-byte blocks, read as 16-bit words); the format's
// decoding is the dense DMMV's, include/dmmv_format_q8_0.glsl.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

#define DMMV_FORMAT_DECLARATIONS_ONLY
#include "dmmv_format_q8_0.glsl"
#undef DMMV_FORMAT_DECLARATIONS_ONLY
#include "moe_dmmv_body.glsl"
#include "dmmv_format_q8_0.glsl"
