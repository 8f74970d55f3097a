#version 450
// Integer-dot DMMV over Q4_K weights in chunks of one sub-block (dmmv_intdot_q4_k32.glsl); the
// loop is dmmv_intdot_body.glsl.
#extension GL_GOOGLE_include_directive : require

#include "dmmv_intdot_common.glsl"
#include "dmmv_intdot_q4_k32.glsl"
#include "dmmv_intdot_body.glsl"
