#version 450
// MoE routing of a prefill chunk and its work list in one dispatch: moe_topk.comp's routes, and
// moe_group.comp's items, assignments and counter written by the last workgroup to finish
// (include/moe_topk_body.glsl with MOE_TOPK_CHUNK_GROUP, include/moe_chunk_group.glsl).
#extension GL_GOOGLE_include_directive : require

#define MOE_TOPK_CHUNK_GROUP
#include "moe_topk_body.glsl"
