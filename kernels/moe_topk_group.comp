#version 450
// MoE routing of one decode token and its work list in one dispatch: moe_topk.comp's routes and
// moe_group.comp's items, assignments and counter (include/moe_topk_body.glsl, MOE_TOPK_GROUP).
#extension GL_GOOGLE_include_directive : require

#define MOE_TOPK_GROUP
#include "moe_topk_body.glsl"
