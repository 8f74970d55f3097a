#version 450
// The int8 matrix DMMV over Q4_K weights for 8 or 16 columns (dmmv_int8mat_q4_k.glsl).
#extension GL_GOOGLE_include_directive : require

#include "dmmv_int8mat_q4_k.glsl"
