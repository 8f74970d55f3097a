#version 450
// The residual integer-dot DMMV over Q4_K weights that also writes the int8 input of the
// RMSNorm after it (dmmv_intdot_norm_epilogue.glsl); the loop is dmmv_intdot_body.glsl's.
#extension GL_GOOGLE_include_directive : require

#define DMMV_NORM_EPILOGUE
#define DMMV_CHUNK_ADD  // the scales as fused multiply-adds (dmmv_intdot_q4_k.glsl)
#include "dmmv_intdot_common.glsl"
#include "dmmv_intdot_q4_k.glsl"
#include "dmmv_intdot_body.glsl"
