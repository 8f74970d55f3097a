#version 450
// attn_merge.comp that also writes its output's int8 form for the integer-dot o-projection, in
// the same dispatch (kernels/include/attn_merge_main.glsl).
#extension GL_GOOGLE_include_directive : require
#define QUANTIZE_OUTPUT
#include "attn_merge_main.glsl"
