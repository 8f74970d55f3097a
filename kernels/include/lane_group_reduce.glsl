// Reductions over groups of `width` invocations that are consecutive in subgroup_major_index()
// order (width a power of two): every invocation ends with its group's result. Inside a
// subgroup by butterfly shuffles, which need no barrier, so where a subgroup holds whole groups
// (NVIDIA's 32 lanes against groups of 32) the reduction has none; a group that spans subgroups
// (lavapipe's 8 lanes, or groups of 64 on NVIDIA) combines the subgroups' shares through shared
// slots behind two barriers. Butterflies combine the same operands in every lane, so a float
// sum has the same bits in each.
//
// PB_LANE_GROUP_REDUCE(NAME, T, COMBINE, SLOTS) defines `T NAME(T a, uint width)`: COMBINE(a, b)
// is the operation, SLOTS a shared float array of at least (workgroup size / min(subgroup size,
// width)) entries that T converts to and from exactly. Every invocation of the workgroup calls
// NAME with the same width (the barriers stay uniform); where a call uses the slots it starts with
// a barrier, so the slots' reads of one call are done before the next call writes them.
#ifndef PB_LANE_GROUP_REDUCE_GLSL
#define PB_LANE_GROUP_REDUCE_GLSL

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "subgroup_order.glsl"

float lane_group_add(float a, float b) { return a + b; }
int lane_group_add(int a, int b) { return a + b; }

// The statement form for K values at once (a local array `a` of K): their butterflies
// interleave and they share the slots' two barriers, where K calls would wait for each other.
// SLOTS holds K * (workgroup size / min(subgroup size, width)) entries here.
#define PB_LANE_GROUP_REDUCE_EACH(a, K, width, T, COMBINE, SLOTS)                                 \
  { /* lgr_ names: an argument naming the includer's variables is not captured by ours */        \
    const uint lgr_lanes = min(gl_SubgroupSize, (width));                                      \
    for (uint lgr_m = 1u; lgr_m < lgr_lanes; lgr_m <<= 1u) {                                   \
      for (uint lgr_k = 0u; lgr_k < (K); ++lgr_k) {                                            \
        a[lgr_k] = COMBINE(a[lgr_k], subgroupShuffleXor(a[lgr_k], lgr_m));                     \
      }                                                                                        \
    }                                                                                          \
    if (lgr_lanes < (width)) { /* the same for the whole workgroup: the barriers stay uniform */ \
      const uint lgr_t = subgroup_major_index(), lgr_shares = gl_WorkGroupSize.x / lgr_lanes;   \
      const uint lgr_parts = (width) / lgr_lanes, lgr_first = (lgr_t / (width)) * lgr_parts;    \
      barrier();                                                                               \
      if (lgr_t % lgr_lanes == 0u) {                                                           \
        for (uint lgr_k = 0u; lgr_k < (K); ++lgr_k) {                                          \
          SLOTS[lgr_k * lgr_shares + lgr_t / lgr_lanes] = float(a[lgr_k]);                     \
        }                                                                                      \
      }                                                                                        \
      barrier();                                                                               \
      for (uint lgr_k = 0u; lgr_k < (K); ++lgr_k) {                                            \
        const uint lgr_at = lgr_k * lgr_shares + lgr_first;                                    \
        a[lgr_k] = T(SLOTS[lgr_at]);                                                           \
        for (uint lgr_p = 1u; lgr_p < lgr_parts; ++lgr_p) a[lgr_k] = COMBINE(a[lgr_k], T(SLOTS[lgr_at + lgr_p])); \
      }                                                                                        \
    }                                                                                          \
  }

#define PB_LANE_GROUP_REDUCE(NAME, T, COMBINE, SLOTS)                                          \
  T NAME(T a, uint width) {                                                                    \
    T lgr_values[1] = T[1](a);                                                                 \
    PB_LANE_GROUP_REDUCE_EACH(lgr_values, 1u, width, T, COMBINE, SLOTS)                        \
    return lgr_values[0];                                                                      \
  }

#endif  // PB_LANE_GROUP_REDUCE_GLSL
