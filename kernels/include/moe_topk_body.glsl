// MoE routing: per token t, the softmax over all E router logits and the top K experts,
// written as route_e[t*K + j] (expert ids, best first) and route_w[t*K + j] (their
// probabilities, renormalized to sum 1 with spec NORM_TOPK as Qwen3-MoE and Qwen3.5 do).
//
// Ranking is on the logits, not the probabilities: exp is monotone, and ranking the exact
// inputs makes the GPU and the CPU reference pick the same experts even where exp() differs
// in its last bit or underflows two logits to the same probability. The order is total:
// larger logit first, equal logits (+0 == -0) by lower expert index, NaN below every number
// (a NaN logit is picked only when fewer than K numbers remain, with probability 0, and is
// left out of the softmax sum). An all -inf / NaN row gives probability 0 everywhere.
//
// One workgroup per token, and in it one subgroup does all the work: K rounds, each a subgroup
// reduction for the best expert below the previous round's winner in that order, so no
// per-expert state is kept, and no round waits at a workgroup barrier (a decode token's
// routing is a chain of such rounds; with two subgroups their 2K + 2 barriers cost more than
// the other subgroup's share of the logits saves). The workgroup is 32 invocations: one subgroup
// on NVIDIA, half of one on RDNA's wave64; where subgroups are narrower (lavapipe) the others
// return at once. Limits: K <= 64 (MAX_TOPK), K <= E.
//
// With MOE_TOPK_GROUP defined (moe_topk_group.comp, decode: one token) the workgroup also
// writes the work list moe_group.comp would build from those K routes (bindings 3-5): the K
// distinct experts in increasing order as items of one assignment each, and each item's
// assignment, so decode needs no dispatch of its own to group them. Included by a kernel after
// its #version and the include extension.
layout(local_size_x = 32) in;
layout(constant_id = 0) const int NORM_TOPK = 1;  // 1: the K weights are divided by their sum

layout(binding = 0) readonly buffer Logits { float logits[]; };  // token t at t * logits_stride
layout(binding = 1) writeonly buffer RouteE { uint route_e[]; };  // [C][K]
layout(binding = 2) writeonly buffer RouteW { float route_w[]; }; // [C][K]
#ifdef MOE_TOPK_GROUP
layout(binding = 3) writeonly buffer Items { uvec4 items[]; };               // [K]
layout(binding = 4) writeonly buffer Assignments { uint assignments[]; };    // [K]
layout(binding = 5) writeonly buffer Counter { uint counter[]; };            // [1]: n_items
#endif

layout(push_constant) uniform Push {
  uint n_experts;      // E: logits per token
  uint top_k;          // K: experts chosen per token
  uint logits_stride;  // floats between tokens' logits
} pc;

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

const uint MAX_TOPK = 64;
const uint NONE = 0xFFFFFFFFu;
#define NEG_INF uintBitsToFloat(0xFF800000u)

// An unsigned key in the ranking order: larger key = better logit; NaN is 0, below -inf.
uint rank_key(float v) {
  if (isnan(v)) return 0u;
  const uint bits = v == 0.0 ? 0u : floatBitsToUint(v);  // -0 ranks as +0
  return (bits & 0x80000000u) != 0u ? ~bits : bits | 0x80000000u;
}

float key_value(uint key) {
  return uintBitsToFloat((key & 0x80000000u) != 0u ? key & 0x7FFFFFFFu : ~key);
}

shared float chosen_p[MAX_TOPK];
shared uint chosen_e[MAX_TOPK];

void main() {
  if (gl_SubgroupID != 0) return;  // narrower subgroups than the workgroup: the first ranks alone
  const uint t = gl_WorkGroupID.x;
  const uint base = t * pc.logits_stride;
  const uint lane = gl_SubgroupInvocationID;
  const uint width = gl_SubgroupSize;

  // Softmax denominators over the numbers of the row.
  float local_max = NEG_INF;
  for (uint e = lane; e < pc.n_experts; e += width) {
    const float v = logits[base + e];
    if (!isnan(v)) local_max = max(local_max, v);
  }
  const float row_max = subgroupMax(local_max);
  const bool empty_row = row_max == NEG_INF;  // every logit -inf or NaN
  float local_sum = 0.0;
  for (uint e = lane; e < pc.n_experts; e += width) {
    const float v = logits[base + e];
    if (!isnan(v) && !empty_row) local_sum += exp(v - row_max);
  }
  const float row_sum = subgroupAdd(local_sum);

  // K rounds; round r's winner is the best (key, then lowest index) strictly after round r-1's.
  uint prev_key = 0xFFFFFFFFu, prev_e = NONE;  // "before everything"
  for (uint r = 0; r < pc.top_k; ++r) {
    uint best_key = 0u, best_e = NONE;
    for (uint e = lane; e < pc.n_experts; e += width) {
      const uint key = rank_key(logits[base + e]);
      const bool after_prev = prev_e == NONE || key < prev_key || (key == prev_key && e > prev_e);
      // Strided indices increase, so the first of equal keys is the lowest index.
      if (after_prev && (best_e == NONE || key > best_key)) {
        best_key = key;
        best_e = e;
      }
    }
    // The largest key, then the lowest index holding it; complementing turns max into min.
    const uint win_key = ~subgroupMin(best_e == NONE ? 0xFFFFFFFFu : ~best_key);
    const uint win_e = subgroupMin(best_e != NONE && best_key == win_key ? best_e : NONE);
    if (lane == r % width) {
      const bool zero = win_key == 0u || empty_row;  // NaN logits and empty rows: probability 0
      chosen_e[r] = win_e;
      chosen_p[r] = zero ? 0.0 : exp(key_value(win_key) - row_max) / row_sum;
    }
    prev_key = win_key;
    prev_e = win_e;
  }
  subgroupMemoryBarrierShared();
  subgroupBarrier();

  // Every lane sums the K probabilities in round order (the same bits in each), then writes
  // its own rounds' routes.
  float total = 0.0;
  for (uint r = 0; r < pc.top_k; ++r) total += chosen_p[r];
  const bool renormalize = NORM_TOPK != 0 && total > 0.0;
  for (uint r = lane; r < pc.top_k; r += width) {
    route_e[t * pc.top_k + r] = chosen_e[r];
    route_w[t * pc.top_k + r] = renormalize ? chosen_p[r] / total : chosen_p[r];
  }
#ifdef MOE_TOPK_GROUP
  // moe_group's list for one token: its routes' experts are distinct, so each is an item of one
  // assignment, the items in increasing expert order; a route's place is the number of chosen
  // experts below its own. Ids >= E are dropped, as moe_group drops them.
  uint items_written = 0;
  for (uint q = 0; q < pc.top_k; ++q) items_written += chosen_e[q] < pc.n_experts ? 1u : 0u;
  for (uint r = lane; r < pc.top_k; r += width) {
    const uint e = chosen_e[r];
    if (e >= pc.n_experts) continue;
    uint place = 0;
    for (uint q = 0; q < pc.top_k; ++q) place += chosen_e[q] < e ? 1u : 0u;
    items[place] = uvec4(e, 1u, place, 0u);
    assignments[place] = r;
  }
  if (lane == 0) counter[0] = items_written;
#endif
}
