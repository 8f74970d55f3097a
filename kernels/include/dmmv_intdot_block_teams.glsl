// What the integer-dot DMMV's block-owning epilogues share (dmmv_intdot_norm_epilogue.glsl,
// dmmv_intdot_glu_epilogue.glsl): a workgroup owns one block of 32 values of what follows the
// projection, so it can quantize that block itself, with no other workgroup to wait for.
//
// The workgroup is teams of TEAM = 32 invocations (one NVIDIA subgroup; several of lavapipe's),
// numbered by subgroup_major_index() / TEAM. A team computes its ROWS rows as a one-team
// workgroup of 32 invocations would (reduce_team), then each team puts its values of the block
// into shared memory and the workgroup quantizes them together (quantize_owned_block) into
// bindings 5 and 6, as quantize_x would (quantize_block_math.glsl).
// Included after dmmv_intdot_body.glsl's declarations, as the includer's main() needs them.
#ifndef PB_DMMV_INTDOT_BLOCK_TEAMS_GLSL
#define PB_DMMV_INTDOT_BLOCK_TEAMS_GLSL

#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require

layout(binding = 5) writeonly buffer OutQuants { int8_t out_quants[]; };  // the block's int8 form, as quantize_x's
layout(binding = 6) writeonly buffer OutScales { vec2 out_scales[]; };

const uint TEAM = 32;  // invocations of a team: one block's worth, so quantizing needs no other layout

// partial[] (row_accumulators.glsl) holds the teams' shares where a team spans subgroups, and
// then the block's shares where the block does: never both at once (barriers between).
#define QB_SCRATCH partial
#include "quantize_block_math.glsl"

// A float's sum over the block's 32 holders (or over each team), in every lane; every
// invocation calls it (lane_group_reduce.glsl).
PB_LANE_GROUP_REDUCE(block_float_sum, float, lane_group_add, QB_SLOTS)

// The team's sums of acc in every lane of the team. Every invocation calls it: where subgroups
// are narrower than a team, the subgroups' shares meet in partial[] behind publish_partials'
// barrier.
void reduce_team() {
  if (gl_SubgroupSize >= TEAM) {
    for (uint m = 1u; m < TEAM; m <<= 1u) {
      [[unroll]] for (int i = 0; i < ROWS; ++i) acc[i] += subgroupShuffleXor(acc[i], m);
    }
    return;
  }
  publish_partials();
  const uint shares = TEAM / gl_SubgroupSize, first_share = (subgroup_major_index() / TEAM) * shares;
  [[unroll]] for (int i = 0; i < ROWS; ++i) {
    float total = 0.0;
    for (uint g = 0u; g < shares; ++g) total += partial[(first_share + g) * ROWS + i];
    acc[i] = total;
  }
}

// acc = this team's ROWS rows (DMMV_ROW of first_row; the GLU's up rows half_rows further) over
// all their chunks, added up over the team: each lane takes chunks lane, lane + TEAM, ...
void accumulate_team_rows(uint first_row, uint half_rows, uint lane) {
  [[unroll]] for (int i = 0; i < ROWS; ++i) acc[i] = 0.0;
  const uint chunks = CHUNKS_PER_ROW(pc.cols);
  const uint step = TEAM;
  uint first = lane;
  for (; first + (UNROLL - 1) * step < chunks; first += UNROLL * step) ACCUMULATE_CHUNKS(UNROLL)
  for (; first < chunks; first += step) ACCUMULATE_CHUNKS(1)
  reduce_team();
}

// Invocations 0..31 (subgroup-major: `holds`) quantize v, element `element` of the block that
// starts at element `block_first`; the rest quantize zeros they never write, so the block
// reductions' barriers stay uniform. Every invocation calls it, after the block is in place.
void quantize_owned_block(float v, bool holds, uint element, uint block_first) {
  const BlockQuant b = quantize_in_block(v, TEAM);
  if (holds) out_quants[element] = int8_t(b.q);
  if (holds && element == block_first) out_scales[block_first / TEAM] = vec2(b.d, b.d * float(b.sum));  // d * sum: exact (23 bits)
}

#endif  // PB_DMMV_INTDOT_BLOCK_TEAMS_GLSL
