#version 450
// Integer-dot DMMV over Q4_K weights in chunks of 16 weights (dmmv_intdot_q4_k16.glsl), the
// layout for several activation columns; the loop is dmmv_intdot_body.glsl.
#extension GL_GOOGLE_include_directive : require

#include "dmmv_intdot_common.glsl"
#include "dmmv_intdot_q4_k16.glsl"
#include "dmmv_intdot_body.glsl"
