#version 450
// The stacked gate and up integer-dot DMMV over Q6_K weights that applies the gated linear unit
// and writes its int8 output (dmmv_intdot_glu_epilogue.glsl); the loop is dmmv_intdot_body.glsl's.
#extension GL_GOOGLE_include_directive : require

#define DMMV_GLU_EPILOGUE
#include "dmmv_intdot_common.glsl"
#include "dmmv_intdot_q6_k.glsl"
#include "dmmv_intdot_body.glsl"
