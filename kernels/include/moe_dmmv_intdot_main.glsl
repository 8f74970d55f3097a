// The experts' integer-dot DMMV (MOE_DMMV in dmmv_intdot_body.glsl): for each work item of
// moe_group.comp (an expert and the assignments routed to it), y[a][row] = sum_k W[e][row][k] *
// xhat[input(a)][k] over the item's assignments a, NUM_COLS per pass, on int8 activations
// (quantize_x.comp, rmsnorm_quantize.comp or glu_quantize.comp wrote them). The expert DMMV of
// moe_dmmv_body.glsl with the dense integer-dot kernel's loop: its format files, chunks and
// unrolled loads, so an expert's rows cost what a dense row of the same format does.
//
// The input column of assignment a = t*K + j is the token t for gate and up (spec
// INPUT_PER_ASSIGNMENT = 0: the quantized normed hidden state, C columns) and a for down (1: the
// quantized activated expert state, C*K columns); the output column is a.
//
// Workgroup (row block, item): gl_WorkGroupID.y is the item, and the workgroup's teams of LANES
// invocations (row_team_reduce.glsl; 0: one team of the whole workgroup) take ROWS rows each,
// from gl_WorkGroupID.x * ROWS * teams on. The grid is static, min(E, C*K) items; items at or
// past counter[0] exit at once, so a decode token costs K item rows, not E. Included by
// dmmv_intdot_body.glsl in place of its main. With MOE_ACC_NORM_EPILOGUE, decode's down also
// adds the experts into the residual and writes the next norm's int8 input
// (moe_dmmv_intdot_acc_norm.glsl).
layout(constant_id = 1) const int INPUT_PER_ASSIGNMENT = 0;  // 0: x column t = a / K; 1: a
layout(constant_id = 9) const int LANES = 0;  // invocations per row team; 0: the whole workgroup

#extension GL_KHR_shader_subgroup_shuffle : require
#include "subgroup_order.glsl"
#include "row_team_reduce.glsl"

layout(binding = 4) readonly buffer Items { uvec4 items[]; };  // (expert, count, first, 0)
layout(binding = 5) readonly buffer Assignments { uint assignments[]; };  // grouped by expert
layout(binding = 6) readonly buffer Counter { uint counter[]; };          // [0]: n_items

// The pass's assignments (output columns) and their input columns. A pass of fewer than
// NUM_COLS assignments repeats its first in the rest, so the unrolled column loop stays as it
// is; those columns are computed and not written.
uint pass_assign[NUM_COLS];
uint pass_input[NUM_COLS];

uint moe_input_column(uint c) { return pass_input[c]; }

#ifdef MOE_ACC_NORM_EPILOGUE
#include "moe_dmmv_intdot_acc_norm.glsl"
#endif

void main() {
  const uint item = gl_WorkGroupID.y;
  if (item >= counter[0]) return;  // uniform over the workgroup: no barrier is skipped
  const uvec4 it = items[item];
  if (it.x < pc.expert_first || it.x - pc.expert_first >= pc.expert_count) return;
  const uint weight_row0 = (it.x - pc.expert_first) * pc.rows;  // read by DMMV_ROW
  const uint lanes = LANES == 0 ? gl_WorkGroupSize.x : uint(LANES);
  const uint teams = gl_WorkGroupSize.x / lanes;
  const uint index = subgroup_major_index();
  const uint lane = index % lanes;
  const uint group_first_row = gl_WorkGroupID.x * ROWS * teams;
  const uint first_row = group_first_row + (index / lanes) * ROWS;  // this team's, read by DMMV_ROW
  const uint chunks = CHUNKS_PER_ROW(pc.cols);
  const uint step = lanes;

  for (uint done = 0; done < it.y; done += NUM_COLS) {
    const uint pass_cols = min(uint(NUM_COLS), it.y - done);
    [[unroll]] for (int c = 0; c < NUM_COLS; ++c) {
      const uint a = assignments[it.z + done + (uint(c) < pass_cols ? uint(c) : 0u)];
      pass_assign[c] = a;
      pass_input[c] = INPUT_PER_ASSIGNMENT != 0 ? a : a / pc.top_k;
    }
    [[unroll]] for (int i = 0; i < ROWS * NUM_COLS; ++i) acc[i] = 0.0;

    uint first = lane;
    for (; first + (UNROLL - 1) * step < chunks; first += UNROLL * step) ACCUMULATE_CHUNKS(UNROLL)
    for (; first < chunks; first += step) ACCUMULATE_CHUNKS(1)

    reduce_row_team(lanes);  // the team's totals in each of its lanes
    // Lane i (mod lanes) writes total i: acc indexed by constants only, so it stays in registers.
    [[unroll]] for (int i = 0; i < ROWS * NUM_COLS; ++i) {
      const uint r = uint(i) / NUM_COLS;
      const uint c = uint(i) % NUM_COLS;
      const uint row = first_row + r;
      if (uint(i) % lanes != lane || row >= pc.rows || c >= pass_cols) continue;
      y[pc.y_offset + pass_assign[c] * pc.y_stride + row] = acc[i];
    }
    barrier();  // partial is reused by the next pass (where the team's sums went through it)
  }
#ifdef MOE_ACC_NORM_EPILOGUE
  accumulate_when_block_done(group_first_row, uint(ROWS) * teams);
#endif
}
