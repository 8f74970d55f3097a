#version 450
// Expert DMMV (include/moe_dmmv_body.glsl) over stacked Q4_K weights
// [E][rows][cols] (144-byte blocks of 256); the format's decoding is the dense DMMV's,
// include/dmmv_format_q4_k.glsl.
#extension GL_GOOGLE_include_directive : require

#define DMMV_FORMAT_DECLARATIONS_ONLY
#include "dmmv_format_q4_k.glsl"
#undef DMMV_FORMAT_DECLARATIONS_ONLY
#include "moe_dmmv_body.glsl"
#include "dmmv_format_q4_k.glsl"
