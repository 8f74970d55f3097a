#version 450
// Decode attention (kernels/include/attn_decode_main.glsl).
#extension GL_GOOGLE_include_directive : require
#include "attn_decode_main.glsl"
