#version 450
// Integer-dot DMMV over Q4_K weights and quantized activations (quantize_x.comp); the
// format's chunks are described in dmmv_intdot_q4_k.glsl, the loop in dmmv_intdot_body.glsl.
#extension GL_GOOGLE_include_directive : require

#include "dmmv_intdot_common.glsl"
#include "dmmv_intdot_q4_k.glsl"
#include "dmmv_intdot_body.glsl"
