#version 450
// The experts' integer-dot DMMV (include/moe_dmmv_intdot_main.glsl) over stacked Q4_K weights
// [E][rows][cols], in the dense kernel's chunks (include/dmmv_intdot_q4_k.glsl).
#extension GL_GOOGLE_include_directive : require

#define MOE_DMMV
#include "dmmv_intdot_common.glsl"
#include "dmmv_intdot_q4_k.glsl"
#include "dmmv_intdot_body.glsl"
