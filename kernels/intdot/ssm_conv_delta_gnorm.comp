#version 450
// A Gated DeltaNet decode step's conv, recurrence and output norm in one dispatch
// (ssm_delta_body.glsl with SSM_CONV_INPUT and SSM_GNORM_QUANTIZE): each value head's last
// workgroup to finish writes the gated norm's int8 blocks for the output projection, as
// ssm_gnorm_quantize would. One dispatch and one barrier less per DeltaNet layer than
// ssm_conv_delta then ssm_gnorm_quantize.
#extension GL_GOOGLE_include_directive : require

#define SSM_CONV_INPUT
#define SSM_GNORM_QUANTIZE
#include "ssm_delta_body.glsl"
