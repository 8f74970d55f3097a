#version 450
// The integer-dot DMMV over Q4_K weights of an RMSNorm's output whose producer left the
// division by the RMS to it (dmmv_intdot_input_rms.glsl); the loop is dmmv_intdot_body.glsl's.
#extension GL_GOOGLE_include_directive : require

#define DMMV_INPUT_RMS
#define DMMV_CHUNK_ADD  // the scales as fused multiply-adds (dmmv_intdot_q4_k.glsl)
#include "dmmv_intdot_common.glsl"
#include "dmmv_intdot_q4_k.glsl"
#include "dmmv_intdot_body.glsl"
