// The routing of one token, for the kernels that route (moe_topk_body.glsl: moe_topk,
// moe_topk_group; moe_dmmv_intdot_glu_main.glsl, decode's experts' gate and up): the softmax
// over its E router logits and its top K experts, ranked by one subgroup, then written as
// route_e[t*K + j] (expert ids, best first) and route_w[t*K + j] (their probabilities,
// renormalized to sum 1 where `norm_topk`, as Qwen3-MoE and Qwen3.5 do), and for one token the
// work list moe_group.comp would build from them.
//
// Ranking is on the logits, not the probabilities: exp is monotone, and ranking the exact
// inputs makes the GPU and the CPU reference pick the same experts even where exp() differs
// in its last bit or underflows two logits to the same probability. The order is total:
// larger logit first, equal logits (+0 == -0) by lower expert index, NaN below every number
// (a NaN logit is picked only when fewer than K numbers remain, with probability 0, and is
// left out of the softmax sum). An all -inf / NaN row gives probability 0 everywhere.
//
// One subgroup does the ranking: K rounds, each two subgroup minima for the best expert below
// the previous round's winner in that order, so no per-expert state is kept and no round waits
// at a workgroup barrier (the 64-invocation form's 2K + 2 reductions through shared memory,
// two barriers each, cost a decode token's routing 2.3 us on an H200: docs/GPU_FIGURES.md).
// Limits: K <= 64 (MAX_TOPK), K <= E.
//
// The includer declares, before including: logits[] (readonly), route_e[], route_w[] and, with
// MOE_TOPK_GROUP defined, items[], assignments[] and counter[] (writeonly).
#ifndef PB_MOE_TOPK_RANK_GLSL
#define PB_MOE_TOPK_RANK_GLSL

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require

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

// Round r's winner and its probability (before any renormalization).
shared float chosen_p[MAX_TOPK];
shared uint chosen_e[MAX_TOPK];

// A row of up to KEYS_PER_LANE logits a lane is ranked from registers: each lane loads its
// logits once, as keys, and the softmax and every round read those (key_value gives a logit
// back, -0 as +0, which exp and the comparisons do not tell apart). Longer rows, or narrower
// subgroups, read the logits from memory in every pass. Both visit a lane's logits in the same
// order, so both give the same bits.
const uint KEYS_PER_LANE = 8;

// Whether `key` (expert e) is a better candidate than (best_key, best_e) for the round after
// (prev_key, prev_e): after the previous winner in the ranking order, and better than the best so
// far (strided indices increase, so the first of equal keys is the lowest index).
bool better_after(uint key, uint e, uint prev_key, uint prev_e, uint best_key, uint best_e) {
  const bool after_prev = prev_e == NONE || key < prev_key || (key == prev_key && e > prev_e);
  return after_prev && (best_e == NONE || key > best_key);
}

// Ranks the n_experts logits from logits[base]: every invocation of one subgroup calls it, and
// on return that subgroup sees chosen_e and chosen_p (other subgroups after a barrier).
void rank_routes(uint base, uint n_experts, uint top_k) {
  const uint lane = gl_SubgroupInvocationID;
  const uint width = gl_SubgroupSize;
  const bool in_registers = n_experts <= KEYS_PER_LANE * width;
  uint keys[KEYS_PER_LANE];
  if (in_registers) {
    [[unroll]] for (uint i = 0; i < KEYS_PER_LANE; ++i) {
      const uint e = lane + i * width;
      keys[i] = e < n_experts ? rank_key(logits[base + e]) : 0u;
    }
  }

  // Softmax denominators over the numbers of the row.
  float local_max = NEG_INF;
  if (in_registers) {
    [[unroll]] for (uint i = 0; i < KEYS_PER_LANE; ++i) {
      const float v = key_value(keys[i]);
      if (lane + i * width < n_experts && !isnan(v)) local_max = max(local_max, v);
    }
  } else {
    for (uint e = lane; e < n_experts; e += width) {
      const float v = logits[base + e];
      if (!isnan(v)) local_max = max(local_max, v);
    }
  }
  const float row_max = subgroupMax(local_max);
  const bool empty_row = row_max == NEG_INF;  // every logit -inf or NaN
  float local_sum = 0.0;
  if (in_registers) {
    [[unroll]] for (uint i = 0; i < KEYS_PER_LANE; ++i) {
      const float v = key_value(keys[i]);
      if (lane + i * width < n_experts && !isnan(v) && !empty_row) local_sum += exp(v - row_max);
    }
  } else {
    for (uint e = lane; e < n_experts; e += width) {
      const float v = logits[base + e];
      if (!isnan(v) && !empty_row) local_sum += exp(v - row_max);
    }
  }
  const float row_sum = subgroupAdd(local_sum);

  // K rounds; round r's winner is the best (key, then lowest index) strictly after round r-1's.
  uint prev_key = 0xFFFFFFFFu, prev_e = NONE;  // "before everything"
  for (uint r = 0; r < top_k; ++r) {
    uint best_key = 0u, best_e = NONE;
    if (in_registers) {
      [[unroll]] for (uint i = 0; i < KEYS_PER_LANE; ++i) {
        const uint e = lane + i * width;
        if (e < n_experts && better_after(keys[i], e, prev_key, prev_e, best_key, best_e)) {
          best_key = keys[i];
          best_e = e;
        }
      }
    } else {
      for (uint e = lane; e < n_experts; e += width) {
        const uint key = rank_key(logits[base + e]);
        if (better_after(key, e, prev_key, prev_e, best_key, best_e)) {
          best_key = key;
          best_e = e;
        }
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
}

// The place of chosen expert e in increasing expert order: the number of chosen experts below
// it (a token's experts are distinct).
uint route_place(uint e, uint top_k) {
  uint place = 0;
  for (uint q = 0; q < top_k; ++q) place += chosen_e[q] < e ? 1u : 0u;
  return place;
}

// Writes token t's routes from chosen_e and chosen_p; every lane of one subgroup calls it, each
// writing its own rounds, after summing the K probabilities in round order (the same bits in
// each).
void write_routes(uint t, uint top_k, bool norm_topk) {
  const uint lane = gl_SubgroupInvocationID;
  float total = 0.0;
  for (uint r = 0; r < top_k; ++r) total += chosen_p[r];
  const bool renormalize = norm_topk && total > 0.0;
  for (uint r = lane; r < top_k; r += gl_SubgroupSize) {
    route_e[t * top_k + r] = chosen_e[r];
    route_w[t * top_k + r] = renormalize ? chosen_p[r] / total : chosen_p[r];
  }
}

#ifdef MOE_TOPK_GROUP
// moe_group's list for one token: its routes' experts are distinct, so each is an item of one
// assignment, the items in increasing expert order (route_place). Ids >= E are dropped, as
// moe_group drops them. Every lane of one subgroup calls it.
void write_work_list(uint n_experts, uint top_k) {
  const uint lane = gl_SubgroupInvocationID;
  uint items_written = 0;
  for (uint q = 0; q < top_k; ++q) items_written += chosen_e[q] < n_experts ? 1u : 0u;
  for (uint r = lane; r < top_k; r += gl_SubgroupSize) {
    const uint e = chosen_e[r];
    if (e >= n_experts) continue;
    const uint place = route_place(e, top_k);
    items[place] = uvec4(e, 1u, place, 0u);
    assignments[place] = r;
  }
  if (lane == 0) counter[0] = items_written;
}
#endif

#endif  // PB_MOE_TOPK_RANK_GLSL
