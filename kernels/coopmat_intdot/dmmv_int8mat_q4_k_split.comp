#version 450
// The int8 matrix DMMV over Q4_K weights with K split across workgroups (grid z), for rows too
// wide for one workgroup to read whole (dmmv_int8mat_body.glsl, INT8MAT_SPLIT_K).
#extension GL_GOOGLE_include_directive : require

#define INT8MAT_SPLIT_K
#include "dmmv_int8mat_q4_k.glsl"
