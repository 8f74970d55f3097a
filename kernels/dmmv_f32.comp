#version 450
// DMMV over F32 weights. A slot is 8 weights, two 16-byte loads.
#extension GL_GOOGLE_include_directive : require

#define DMMV_FORMAT_DECLARATIONS_ONLY
#include "dmmv_format_f32.glsl"
#undef DMMV_FORMAT_DECLARATIONS_ONLY
#include "dmmv_body.glsl"
#include "dmmv_format_f32.glsl"
