// DMMV_NORM_EPILOGUE (dmmv_intdot_body.glsl): a residual projection y += W x of one column that
// also produces the int8 input of the RMSNorm that follows it, so the norm needs no dispatch of
// its own. The norm's scale 1 / rms(y) needs all of y, which no workgroup has; but the
// projection after the norm is linear, so that division is left to it
// (dmmv_intdot_input_rms.glsl). What needs only a block of y is done here:
//   quants and scales  y * w quantized in blocks of 32 (w: the norm's weight), as quantize_x
//                      quantizes (quantize_block_math.glsl); the quants of (y / rms) * w are the
//                      same integers with every scale divided by rms
//   block_squares      sum of y^2 over each block of 32
//
// For that a workgroup owns one whole block: 32 rows, as teams of 32 invocations (one NVIDIA
// subgroup; several of lavapipe's) of ROWS rows each, workgroup size 32 * 32 / ROWS. A team
// computes its rows as a one-team workgroup of 32 invocations would; the teams then meet once,
// through 32 floats of shared memory, to quantize the block. Nothing waits on another workgroup.
//
// Needs NUM_COLS = 1, ACCUMULATE = 1 and rows a multiple of 32 (engine/ops/dmmv_intdot_op.cpp
// checks); pc.row_base is the slice's first row in y and in the norm's output.
#ifndef PB_DMMV_INTDOT_NORM_EPILOGUE_GLSL
#define PB_DMMV_INTDOT_NORM_EPILOGUE_GLSL

#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require

layout(binding = 4) readonly buffer NormWeight { float norm_weight[]; };
layout(binding = 5) writeonly buffer OutQuants { int8_t out_quants[]; };  // the norm's output, as quantize_x's
layout(binding = 6) writeonly buffer OutScales { vec2 out_scales[]; };
layout(binding = 7) writeonly buffer BlockSquares { float block_squares[]; };

const uint TEAM = 32;  // invocations of a team: one block's worth, so quantizing needs no other layout

// partial[] (row_accumulators.glsl) holds the teams' shares where a team spans subgroups, and
// then the block's shares where the block does: never both at once (barriers between).
#define QB_SCRATCH partial
#include "quantize_block_math.glsl"
PB_LANE_GROUP_REDUCE(block_float_sum, float, lane_group_add, QB_SLOTS)

shared float block_y[TEAM];  // the workgroup's 32 new values of y, in row order

// The team's sums of acc in every lane of the team (whose subgroup_major_index() / TEAM is the
// team's number). Every invocation calls it: where subgroups are narrower than a team, the
// subgroups' shares meet in partial[] behind publish_partials' barrier.
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

void main() {
  const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint t = subgroup_major_index();
  const uint team = t / TEAM, lane = t % TEAM;
  const uint block_row = group * TEAM;  // the workgroup's first row, in this slice
  const uint first_row = block_row + team * ROWS;
  // What the epilogue reads, loaded before the loop so that it waits on no memory at the end:
  // lane r < ROWS of a team its row of y, the block's holders (below) their norm weight.
  const float y_old = lane < ROWS ? y[pc.y_offset + pc.row_base + first_row + lane] : 0.0;
  const bool holds = t < TEAM;
  const uint row = pc.row_base + block_row + t;  // the norm's element, for the holders
  const float weight = holds ? norm_weight[row] : 0.0;
  [[unroll]] for (int i = 0; i < ROWS; ++i) acc[i] = 0.0;

  const uint chunks = CHUNKS_PER_ROW(pc.cols);
  const uint step = TEAM;
  uint first = lane;
  for (; first + (UNROLL - 1) * step < chunks; first += UNROLL * step) ACCUMULATE_CHUNKS(UNROLL)
  for (; first < chunks; first += step) ACCUMULATE_CHUNKS(1)
  reduce_team();

  // Lane r of a team adds row r of its rows into y (acc indexed by constants only).
  [[unroll]] for (int r = 0; r < ROWS; ++r) {
    if (lane == uint(r)) {
      const float value = y_old + acc[r];
      y[pc.y_offset + pc.row_base + first_row + uint(r)] = value;
      block_y[team * ROWS + uint(r)] = value;
    }
  }
  barrier();

  // Invocations 0..31 (subgroup-major) hold the block, one row each; the rest quantize zeros
  // they never write, so the block reductions' barriers stay uniform.
  const float value = holds ? block_y[t] : 0.0;
  const float v = value * weight;
  const float amax = qb_block_max(abs(v), TEAM);
  const float d = block_scale(amax);
  const float inv_d = amax > 0.0 ? 1.0 / d : 0.0;
  const int q = amax > 0.0 ? nearest_quant(v, d, inv_d) : 0;
  if (holds) out_quants[row] = int8_t(q);
  const int sum = qb_block_sum(q, TEAM);
  const float squares = block_float_sum(value * value, TEAM);
  if (t == 0u) {
    out_scales[row / TEAM] = vec2(d, d * float(sum));  // d * sum: exact (23 bits)
    block_squares[row / TEAM] = squares;
  }
}

#endif  // PB_DMMV_INTDOT_NORM_EPILOGUE_GLSL
