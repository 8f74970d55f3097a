#version 450
// Per-head RMSNorm and rotary embedding of q and k, in place (kernels/include/qk_norm_rope_body.glsl).
#extension GL_GOOGLE_include_directive : require
#include "qk_norm_rope_body.glsl"
