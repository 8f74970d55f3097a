// Expert DMMV: for each work item (an expert and the assignments routed to it, built by
// moe_group.comp), y[a][row] = sum_k W[e][row][k] * x[col(a)][k] over the item's assignments
// a, NUM_COLS assignments per pass, so an expert's weights are read once per pass and only
// for experts some token selected. The weight tensor stacks the experts, [E][rows][cols].
//
// The input column of an assignment a = t*K + j is the token t for the gate/up projections
// (spec INPUT_PER_ASSIGNMENT = 0: x is the normed hidden state [C][cols]) and a itself for
// down (1: x is the activated expert FFN state [C*K][cols]). The output column is always a.
//
// Workgroup (row block, item): gl_WorkGroupID.x * ROWS is the first row, gl_WorkGroupID.y
// the item. The grid is static, min(E, C*K) items; items at or past counter[0] exit at once,
// so a decode step with K experts costs K workgroup rows, not E.
//
// The weight formats are the DMMV's own (dmmv_format_<fmt>.glsl): the including file puts
// the format's declarations before this body and its accumulate_slot() after it, as the
// dense kernels do; accumulate_slot reads weight row e*rows + row of the binding.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(constant_id = 0) const int NUM_COLS = 1;              // assignments per pass
layout(constant_id = 1) const int INPUT_PER_ASSIGNMENT = 0;  // 0: x column t = a / K; 1: a
layout(constant_id = 3) const int ROWS = 2;                  // rows per workgroup
layout(local_size_x_id = 2) in;                              // threads per workgroup (spec id 2)

layout(binding = 1) readonly buffer X { vec4 x4[]; };         // column c at c * x_stride floats
layout(binding = 2) writeonly buffer Y { float y[]; };        // column a at a * y_stride floats
layout(binding = 3) readonly buffer Items { uvec4 items[]; };  // (expert, count, first, 0)
layout(binding = 4) readonly buffer Assignments { uint assignments[]; };  // grouped by expert
layout(binding = 5) readonly buffer Counter { uint counter[]; };          // [0]: n_items

layout(push_constant) uniform Push {
  uint rows;          // rows of one expert's matrix
  uint cols;          // input length, a multiple of the block size
  uint top_k;         // K: assignment a belongs to token a / K
  uint x_stride;      // floats between x columns (a multiple of 4)
  uint y_stride;      // floats between y columns
  uint x_offset;      // floats from the x binding's start to column 0 (a multiple of 4)
  uint y_offset;      // floats from the y binding's start to column 0
  uint expert_first;  // expert held first by this dispatch's weight binding
  uint expert_count;  // experts in the binding; items of other experts exit at once
} pc;

#include "row_accumulators.glsl"

uint pass_cols;                // assignments in the current pass (<= NUM_COLS)
uint pass_assign[NUM_COLS];    // their assignment indices (output columns)
uint pass_input[NUM_COLS];     // their input columns

// The format files' loop over the columns of a slot: the pass's assignments.
#define FOR_EACH_COLUMN(c, STATEMENT) \
  for (int c = 0; c < int(pass_cols); ++c) { STATEMENT; }

void accumulate_slot(uint r, uint row, uint block, uint slot);  // defined by the format file

// x[input column of the pass's c-th assignment][k .. k+3] for a k that is a multiple of 4.
vec4 x_at(uint c, uint k) { return x4[(pc.x_offset + pass_input[c] * pc.x_stride + k) >> 2]; }

void main() {
  const uint item = gl_WorkGroupID.y;
  if (item >= counter[0]) return;  // uniform over the workgroup: no barrier is skipped
  const uvec4 it = items[item];
  if (it.x < pc.expert_first || it.x - pc.expert_first >= pc.expert_count) return;
  const uint weight_row0 = (it.x - pc.expert_first) * pc.rows;
  const uint first_row = gl_WorkGroupID.x * ROWS;
  const uint slots = BLOCKS_PER_ROW(pc.cols) * SLOTS_PER_BLOCK;

  for (uint done = 0; done < it.y; done += NUM_COLS) {
    pass_cols = min(uint(NUM_COLS), it.y - done);
    for (int c = 0; c < NUM_COLS; ++c) {
      const uint a = uint(c) < pass_cols ? assignments[it.z + done + c] : 0u;
      pass_assign[c] = a;
      pass_input[c] = INPUT_PER_ASSIGNMENT != 0 ? a : a / pc.top_k;
    }
    for (int i = 0; i < ROWS * NUM_COLS; ++i) acc[i] = 0.0;

    for (uint s = gl_LocalInvocationID.x; s < slots; s += gl_WorkGroupSize.x) {
      const uint block = s / SLOTS_PER_BLOCK;
      const uint slot = s % SLOTS_PER_BLOCK;
      for (int r = 0; r < ROWS; ++r) {
        const uint row = first_row + r;
        if (row < pc.rows) accumulate_slot(r, weight_row0 + row, block, slot);
      }
    }

    publish_partials();  // reduce over the workgroup (row_accumulators.glsl)
    for (uint i = gl_LocalInvocationID.x; i < ROWS * NUM_COLS; i += gl_WorkGroupSize.x) {
      const uint r = i / NUM_COLS;
      const uint c = i % NUM_COLS;
      const uint row = first_row + r;
      if (row >= pc.rows || c >= pass_cols) continue;
      const float total = workgroup_total(i);
      y[pc.y_offset + pass_assign[c] * pc.y_stride + row] = total;
    }
    barrier();  // partial is reused by the next pass
  }
}
