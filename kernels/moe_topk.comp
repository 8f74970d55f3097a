#version 450
// MoE routing: the softmax and the top K experts of each token (include/moe_topk_body.glsl).
#extension GL_GOOGLE_include_directive : require

#include "moe_topk_body.glsl"
