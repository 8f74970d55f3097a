#version 450
// MoE work list: from the routes of C tokens (route_e, [C][K] expert ids), the distinct
// selected experts and the assignments each one serves, so that the expert DMMVs read the
// weights of selected experts only, once per chunk however many tokens chose them.
//   items[i] = uvec4(expert, count, first, 0) for i < n_items, in increasing expert order
//   assignments[first .. first + count) = the assignment indices a = t*K + j routed to that
//     expert, increasing (so stable by token)
//   counter[0] = n_items
// Everything is deterministic (no order depends on atomics), so every run and every schedule
// gives the same list.
//
// One workgroup: count per expert, one workgroup scan for each expert's first assignment and
// item slot, then each assignment's rank within its expert by counting the earlier
// assignments with the same expert (n/2 shared-memory reads on average). Limits: E <= 512
// (MAX_EXPERTS), n = C*K <= 1024 (MAX_ASSIGNMENTS); the op builder checks both. Expert ids
// >= E (moe_topk never writes them) are dropped.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(local_size_x = 256) in;

layout(binding = 0) readonly buffer RouteE { uint route_e[]; };         // [n]
layout(binding = 1) writeonly buffer Items { uvec4 items[]; };          // [min(E, n)]
layout(binding = 2) writeonly buffer Assignments { uint assignments[]; };  // [n]
layout(binding = 3) writeonly buffer Counter { uint counter[]; };       // [1]: n_items

layout(push_constant) uniform Push {
  uint n_experts;      // E
  uint n_assignments;  // n = C * K
} pc;

const uint MAX_EXPERTS = 512;
const uint MAX_ASSIGNMENTS = 1024;
const uint EXPERTS_PER_THREAD = MAX_EXPERTS / gl_WorkGroupSize.x;

shared uint s_expert[MAX_ASSIGNMENTS];  // route_e, read many times by the rank step
shared uint s_count[MAX_EXPERTS];
shared uint s_first[MAX_EXPERTS];       // index in assignments of the expert's first entry
shared uint s_scan[gl_WorkGroupSize.x];  // one total per subgroup

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint n = pc.n_assignments;
  for (uint e = tid; e < MAX_EXPERTS; e += gl_WorkGroupSize.x) s_count[e] = 0;
  barrier();
  for (uint a = tid; a < n; a += gl_WorkGroupSize.x) {
    const uint e = route_e[a];
    s_expert[a] = e;
    if (e < pc.n_experts) atomicAdd(s_count[e], 1u);
  }
  barrier();

  // One exclusive scan of (count | nonzero << 16) over the experts gives both each expert's
  // first assignment (low half: sums stay <= 1024) and its item slot (high half: <= 512).
  const uint e0 = tid * EXPERTS_PER_THREAD;
  uint local_sum = 0;
  for (uint i = 0; i < EXPERTS_PER_THREAD; ++i) {
    const uint c = s_count[e0 + i];
    local_sum += c | (c != 0 ? 1u << 16 : 0u);
  }
  const uint in_subgroup = subgroupExclusiveAdd(local_sum);
  const uint subgroup_total = subgroupAdd(local_sum);
  if (subgroupElect()) s_scan[gl_SubgroupID] = subgroup_total;
  barrier();
  uint prefix = in_subgroup, total = 0;
  for (uint s = 0; s < gl_NumSubgroups; ++s) {
    if (s < gl_SubgroupID) prefix += s_scan[s];
    total += s_scan[s];
  }
  for (uint i = 0; i < EXPERTS_PER_THREAD; ++i) {
    const uint e = e0 + i;
    const uint c = s_count[e];
    const uint first = prefix & 0xFFFFu;
    s_first[e] = first;
    if (c != 0) items[prefix >> 16] = uvec4(e, c, first, 0);
    prefix += c | (c != 0 ? 1u << 16 : 0u);
  }
  if (tid == 0) counter[0] = total >> 16;
  barrier();

  for (uint a = tid; a < n; a += gl_WorkGroupSize.x) {
    const uint e = s_expert[a];
    if (e >= pc.n_experts) continue;
    uint rank = 0;
    for (uint b = 0; b < a; ++b) rank += s_expert[b] == e ? 1u : 0u;
    assignments[s_first[e] + rank] = a;
  }
}
