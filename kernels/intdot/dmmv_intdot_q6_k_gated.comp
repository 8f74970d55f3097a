#version 450
// The integer-dot DMMV over Q6_K weights whose output is gated by a sigmoid and added into y
// (DMMV_OUTPUT_GATE in dmmv_intdot_body.glsl): Qwen3.5's shared expert's down projection.
#extension GL_GOOGLE_include_directive : require

#define DMMV_OUTPUT_GATE
#include "dmmv_intdot_common.glsl"
#include "dmmv_intdot_q6_k.glsl"
#include "dmmv_intdot_body.glsl"
