#version 450
// DMMV over Q6_K weights (210-byte blocks of 256: 128 bytes of low nibbles, 64 bytes of high
// bit pairs, 16 int8 scales, f16 d). A slot is 16 weights: four consecutive positions l of one
// 128-weight half, at the four quarter offsets (+0, +32, +64, +96) that share their bytes.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

#define DMMV_FORMAT_DECLARATIONS_ONLY
#include "dmmv_format_q6_k.glsl"
#undef DMMV_FORMAT_DECLARATIONS_ONLY
#include "dmmv_body.glsl"
#include "dmmv_format_q6_k.glsl"
