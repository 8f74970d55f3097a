#version 450
// Integer-dot DMMV over Q8_0 weights and quantized activations (quantize_x.comp); the
// format's chunks are described in dmmv_intdot_q8_0.glsl, the loop in dmmv_intdot_body.glsl.
#extension GL_GOOGLE_include_directive : require

#include "dmmv_intdot_common.glsl"
#include "dmmv_intdot_q8_0.glsl"
#include "dmmv_intdot_body.glsl"
