#version 450
// The Gated DeltaNet's causal conv and recurrence in one dispatch (ssm_delta_body.glsl with
// SSM_CONV_INPUT): each workgroup computes the conv of the channels it reads, and each key
// head's last workgroup to finish advances their conv state. One dispatch and one barrier less
// per DeltaNet layer than ssm_conv then ssm_delta.
#extension GL_GOOGLE_include_directive : require

#define SSM_CONV_INPUT
#include "ssm_delta_body.glsl"
