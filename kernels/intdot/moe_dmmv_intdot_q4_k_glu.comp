#version 450
// The experts' gate and up of a decode token with the SwiGLU applied, act written in int8
// (include/moe_dmmv_intdot_glu_main.glsl), over stacked Q4_K weights in the dense kernel's
// chunks (include/dmmv_intdot_q4_k.glsl).
#extension GL_GOOGLE_include_directive : require

#define MOE_DMMV
#define DMMV_GLU_EPILOGUE
#include "dmmv_intdot_common.glsl"
#include "dmmv_intdot_q4_k.glsl"
#include "dmmv_intdot_body.glsl"
