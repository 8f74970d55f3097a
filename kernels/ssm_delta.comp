#version 450
// The Gated DeltaNet recurrence over a chunk of the conv's output (ssm_delta_body.glsl).
#extension GL_GOOGLE_include_directive : require

#include "ssm_delta_body.glsl"
