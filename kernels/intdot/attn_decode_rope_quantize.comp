#version 450
// attn_decode_rope.comp (one split) that also writes its output's int8 form for the
// integer-dot o-projection (kernels/include/attn_decode_main.glsl, ROPE_PROLOGUE and
// QUANTIZE_OUTPUT).
#extension GL_GOOGLE_include_directive : require
#define ROPE_PROLOGUE
#define QUANTIZE_OUTPUT
#include "attn_decode_main.glsl"
