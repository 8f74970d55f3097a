#version 450
// Integer-dot DMMV over Q8_0 weights in chunks of a whole block (dmmv_intdot_q8_032.glsl); the
// loop is dmmv_intdot_body.glsl.
#extension GL_GOOGLE_include_directive : require

#include "dmmv_intdot_common.glsl"
#include "dmmv_intdot_q8_032.glsl"
#include "dmmv_intdot_body.glsl"
