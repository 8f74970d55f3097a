#version 450
// DMMV over Q8_0 weights (34-byte blocks of 32: f16 d, 32 int8). Blocks are 2-byte aligned,
// so the weights are read as 16-bit words. A slot is 8 weights.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

#define DMMV_FORMAT_DECLARATIONS_ONLY
#include "dmmv_format_q8_0.glsl"
#undef DMMV_FORMAT_DECLARATIONS_ONLY
#include "dmmv_body.glsl"
#include "dmmv_format_q8_0.glsl"
