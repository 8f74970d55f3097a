#version 450
// DMMV over F16 weights. A slot is 8 weights, one 16-byte load.
#extension GL_GOOGLE_include_directive : require

#define DMMV_FORMAT_DECLARATIONS_ONLY
#include "dmmv_format_f16.glsl"
#undef DMMV_FORMAT_DECLARATIONS_ONLY
#include "dmmv_body.glsl"
#include "dmmv_format_f16.glsl"
