#version 450
// Expert DMMV (include/moe_dmmv_body.glsl) over stacked F32 weights [E][rows][cols];
// the format's decoding is the dense DMMV's, include/dmmv_format_f32.glsl.
#extension GL_GOOGLE_include_directive : require

#define DMMV_FORMAT_DECLARATIONS_ONLY
#include "dmmv_format_f32.glsl"
#undef DMMV_FORMAT_DECLARATIONS_ONLY
#include "moe_dmmv_body.glsl"
#include "dmmv_format_f32.glsl"
