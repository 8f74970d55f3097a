#version 450
// The int8 matrix DMMV over Q8_0 weights for 8 or 16 columns (dmmv_int8mat_q8_0.glsl).
#extension GL_GOOGLE_include_directive : require

#include "dmmv_int8mat_q8_0.glsl"
