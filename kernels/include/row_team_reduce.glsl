// Row teams: a workgroup cut into teams of `lanes` invocations (consecutive in
// subgroup_major_index order), each team its own ROWS rows, so that rows of few chunks keep
// every invocation busy. A Q4_K row of 512 or 768 inputs is 8 or 12 chunks of 64 weights: one
// team of 32 left 24 or 20 of its invocations idle (the experts' down in qwen35-35b-a3b and
// qwen3-30b-a3b).
//
// reduce_row_team(lanes) sums acc[] (row_accumulators.glsl) over the calling invocation's team,
// the totals in every lane of it: by subgroup shuffles where a team lies within a subgroup, else
// by each subgroup's sums through partial[] (its barrier is uniform: every invocation calls it).
// `lanes` is a power of two dividing the workgroup; the includer enables
// GL_KHR_shader_subgroup_shuffle and includes row_accumulators.glsl and subgroup_order.glsl.
#ifndef PB_ROW_TEAM_REDUCE_GLSL
#define PB_ROW_TEAM_REDUCE_GLSL

void reduce_row_team(uint lanes) {
  if (lanes <= gl_SubgroupSize) {
    for (uint m = 1u; m < lanes; m <<= 1u) {
      [[unroll]] for (int i = 0; i < ROWS * NUM_COLS; ++i) acc[i] += subgroupShuffleXor(acc[i], m);
    }
    return;
  }
  publish_partials();  // subgroup sums, then the team's subgroups added in order
  const uint shares = lanes / gl_SubgroupSize;
  const uint first_share = (subgroup_major_index() / lanes) * shares;
  [[unroll]] for (int i = 0; i < ROWS * NUM_COLS; ++i) {
    float total = 0.0;
    for (uint g = 0u; g < shares; ++g) total += partial[(first_share + g) * (ROWS * NUM_COLS) + uint(i)];
    acc[i] = total;
  }
}

#endif  // PB_ROW_TEAM_REDUCE_GLSL
