// MoE routing: per token t, the softmax over all E router logits and the top K experts
// (moe_topk_rank.glsl), written as route_e[t*K + j] and route_w[t*K + j].
//
// One workgroup per token, of 32 invocations: one subgroup on NVIDIA, half of one on RDNA's
// wave64; where subgroups are narrower (lavapipe) all but the first return at once, and that one
// ranks the row alone. (MOE_TOPK_CHUNK_GROUP's are 256: the first subgroup ranks, and the
// others wait to group the chunk if theirs is the last workgroup.)
//
// With MOE_TOPK_GROUP defined (moe_topk_group.comp, decode: one token) the workgroup also
// writes the work list moe_group.comp would build from those K routes (bindings 3-5): the K
// distinct experts in increasing order as items of one assignment each, and each item's
// assignment, so decode needs no dispatch of its own to group them. With MOE_TOPK_CHUNK_GROUP
// (moe_topk_chunk_group.comp, a prefill chunk) the last workgroup to finish writes the chunk's
// work list (moe_chunk_group.glsl; binding 6 counts the arrivals). Included by a kernel after
// its #version and the include extension.
#ifdef MOE_TOPK_CHUNK_GROUP
layout(local_size_x = 256) in;  // the first subgroup ranks; the last workgroup groups with all
#else
layout(local_size_x = 32) in;
#endif
layout(constant_id = 0) const int NORM_TOPK = 1;  // 1: the K weights are divided by their sum

layout(binding = 0) readonly buffer Logits { float logits[]; };  // token t at t * logits_stride
#ifdef MOE_TOPK_CHUNK_GROUP
layout(binding = 1) coherent buffer RouteE { uint route_e[]; };  // [C][K], read back by the last
#else
layout(binding = 1) writeonly buffer RouteE { uint route_e[]; };  // [C][K]
#endif
layout(binding = 2) writeonly buffer RouteW { float route_w[]; }; // [C][K]
#if defined(MOE_TOPK_GROUP) || defined(MOE_TOPK_CHUNK_GROUP)
layout(binding = 3) writeonly buffer Items { uvec4 items[]; };               // [min(E, C K)]
layout(binding = 4) writeonly buffer Assignments { uint assignments[]; };    // [C K]
layout(binding = 5) writeonly buffer Counter { uint counter[]; };            // [1]: n_items
#endif
#ifdef MOE_TOPK_CHUNK_GROUP
layout(binding = 6) coherent buffer Arrivals { uint arrivals[]; };  // [1]: zero between dispatches
#endif

layout(push_constant) uniform Push {
  uint n_experts;      // E: logits per token
  uint top_k;          // K: experts chosen per token
  uint logits_stride;  // floats between tokens' logits
} pc;

#include "moe_topk_rank.glsl"
#ifdef MOE_TOPK_CHUNK_GROUP
#include "moe_chunk_group.glsl"
#endif

#ifdef MOE_TOPK_CHUNK_GROUP
void main() {
  const uint t = gl_WorkGroupID.x;
  if (gl_SubgroupID == 0) {
    rank_routes(t * pc.logits_stride, pc.n_experts, pc.top_k);
    write_routes(t, pc.top_k, NORM_TOPK != 0);
  }
  group_chunk_when_last(gl_NumWorkGroups.x, pc.n_experts, pc.top_k);
}
#else
void main() {
  if (gl_SubgroupID != 0) return;  // narrower subgroups than the workgroup: the first ranks alone
  const uint t = gl_WorkGroupID.x;
  rank_routes(t * pc.logits_stride, pc.n_experts, pc.top_k);
  write_routes(t, pc.top_k, NORM_TOPK != 0);
#ifdef MOE_TOPK_GROUP
  write_work_list(pc.n_experts, pc.top_k);
#endif
}
#endif
