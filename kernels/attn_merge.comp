#version 450
// Combines decode attention's split partials (kernels/include/attn_merge_main.glsl).
#extension GL_GOOGLE_include_directive : require
#include "attn_merge_main.glsl"
