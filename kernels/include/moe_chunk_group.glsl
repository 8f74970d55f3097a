// A prefill chunk's work list written by the last of its top-k workgroups to finish
// (moe_topk_chunk_group.comp): what moe_group.comp writes from the chunk's routes, without a
// dispatch and a barrier of its own. Each workgroup counts its arrival after its routes; the
// one that counts last (it only learns that it is last, so nothing depends on workgroups
// running concurrently) groups every token's routes with all its invocations and sets the count
// back to zero for the next dispatch.
//
// The grouping keeps, per expert, a mask of the tokens that chose it (a token's K experts are
// distinct, so one bit per token and expert): an expert's count is its mask's population, and
// assignment a = t K + j's rank among its expert's assignments is the number of tokens before t
// in that mask. So each invocation does a few steps, where moe_group's rank step scans the
// earlier assignments. The list is moe_group's: items in increasing expert order, assignments
// increasing within an expert, nothing depending on the order of atomics. Limits: E <=
// CHUNK_MAX_EXPERTS, C <= 32 CHUNK_MASK_WORDS (moe_topk_chunk_group_op checks both).
//
// The includer declares, before including: route_e[] (coherent: the last workgroup reads the
// others'), items[], assignments[], counter[] (writeonly) and arrivals[] (coherent).
#ifndef PB_MOE_CHUNK_GROUP_GLSL
#define PB_MOE_CHUNK_GROUP_GLSL

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

const uint CHUNK_MAX_EXPERTS = 512;
const uint CHUNK_MASK_WORDS = 4;  // up to 128 tokens

shared uint s_tokens[CHUNK_MAX_EXPERTS * CHUNK_MASK_WORDS];  // [expert][word]: the tokens that chose it
shared uint s_first[CHUNK_MAX_EXPERTS];  // index in assignments of the expert's first entry
shared uint s_scan[gl_WorkGroupSize.x];  // one total per subgroup
shared bool s_last;

uint expert_count(uint e, uint words) {
  uint count = 0;
  for (uint w = 0; w < words; ++w) count += bitCount(s_tokens[e * words + w]);
  return count;
}

// Tokens before t that chose e.
uint tokens_before(uint e, uint t, uint words) {
  uint rank = 0;
  for (uint w = 0; w < t / 32; ++w) rank += bitCount(s_tokens[e * words + w]);
  return rank + bitCount(s_tokens[e * words + t / 32] & ((1u << (t % 32)) - 1u));
}

// The whole workgroup calls it, after its token's routes are written.
void group_chunk_when_last(uint ncols, uint n_experts, uint top_k) {
  const uint tid = gl_LocalInvocationIndex, width = gl_WorkGroupSize.x;
  memoryBarrierBuffer();  // the routes are visible before the count says they are there
  barrier();
  if (tid == 0u) s_last = atomicAdd(arrivals[0], 1u) == ncols - 1u;
  barrier();
  if (!s_last) return;  // the whole workgroup: s_last is shared
  memoryBarrierBuffer();  // and the reads of the others' routes below come after the count

  const uint words = (ncols + 31u) / 32u;
  const uint n = ncols * top_k;
  for (uint i = tid; i < n_experts * words; i += width) s_tokens[i] = 0u;
  barrier();
  for (uint a = tid; a < n; a += width) {
    const uint e = route_e[a], t = a / top_k;
    if (e < n_experts) atomicOr(s_tokens[e * words + t / 32u], 1u << (t % 32u));
  }
  barrier();

  // One exclusive scan of (count | nonzero << 16) over the experts, as moe_group's, gives each
  // expert's first assignment (low half) and its item slot (high half).
  const uint per_invocation = (n_experts + width - 1u) / width;
  const uint e0 = tid * per_invocation, e_end = min(e0 + per_invocation, n_experts);
  uint local_sum = 0u;
  for (uint e = e0; e < e_end; ++e) {
    const uint c = expert_count(e, words);
    local_sum += c | (c != 0u ? 1u << 16 : 0u);
  }
  const uint in_subgroup = subgroupExclusiveAdd(local_sum);
  const uint subgroup_total = subgroupAdd(local_sum);
  if (subgroupElect()) s_scan[gl_SubgroupID] = subgroup_total;
  barrier();
  uint prefix = in_subgroup, total = 0u;
  for (uint s = 0; s < gl_NumSubgroups; ++s) {
    if (s < gl_SubgroupID) prefix += s_scan[s];
    total += s_scan[s];
  }
  for (uint e = e0; e < e_end; ++e) {
    const uint c = expert_count(e, words);
    const uint first = prefix & 0xFFFFu;
    s_first[e] = first;
    if (c != 0u) items[prefix >> 16] = uvec4(e, c, first, 0u);
    prefix += c | (c != 0u ? 1u << 16 : 0u);
  }
  if (tid == 0u) {
    counter[0] = total >> 16;
    arrivals[0] = 0u;  // for the next dispatch: every workgroup of this one has counted
  }
  barrier();
  for (uint a = tid; a < n; a += width) {
    const uint e = route_e[a];
    if (e >= n_experts) continue;
    assignments[s_first[e] + tokens_before(e, a / top_k, words)] = a;
  }
}

#endif  // PB_MOE_CHUNK_GROUP_GLSL
