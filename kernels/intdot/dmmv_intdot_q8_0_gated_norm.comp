#version 450
// The integer-dot DMMV over Q8_0 weights whose output is gated by a sigmoid and added into y
// (DMMV_OUTPUT_GATE), and that then writes the int8 input of the RMSNorm after it
// (dmmv_intdot_norm_epilogue.glsl): Qwen3.5's shared expert's down projection, the last op of
// its layer, with the next layer's norm in its epilogue. The gate takes binding 8, after the
// norm epilogue's own.
#extension GL_GOOGLE_include_directive : require

#define DMMV_OUTPUT_GATE
#define DMMV_OUTPUT_GATE_BINDING 8
#define DMMV_NORM_EPILOGUE
#include "dmmv_intdot_common.glsl"
#include "dmmv_intdot_q8_0.glsl"
#include "dmmv_intdot_body.glsl"
