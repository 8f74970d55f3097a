#version 450
// The reduction of a split projection whose output is gated by one sigmoid per token and added
// into the residual (Qwen3.5's shared expert: y += sigmoid(g[token]) * (W x)): the sums as
// matmul_split_reduce.comp adds them (include/split_slots.glsl), divided by 1 + exp(-g) as
// sigmoid_mul.comp does and added as add.comp does, so the bits are those of the three
// dispatches it replaces; the ungated output is never written. One invocation per element;
// workgroup row y is the token.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 64) in;

layout(binding = 0) readonly buffer SplitSums { float split_sums[]; };
layout(binding = 1) readonly buffer Gate { float g[]; };
layout(binding = 2) buffer Y { float y[]; };

layout(push_constant) uniform Push {
  uint rows;         // the split op's rows: elements per column of y
  uint ncols;        // tokens
  uint y_stride;     // floats between y columns
  uint y_offset;     // floats before the first column's first element
  uint gate_stride;  // floats between tokens' gates
  uint gate_offset;  // floats before the first token's gate
} pc;

#include "split_slots.glsl"

void main() {
  const uint row = gl_GlobalInvocationID.x, token = gl_WorkGroupID.y;
  if (row >= pc.rows) return;
  const float gated = split_slot_sum(row, token, pc.ncols) / (1.0 + exp(-g[pc.gate_offset + token * pc.gate_stride]));
  const uint at = pc.y_offset + token * pc.y_stride + row;
  y[at] = y[at] + gated;
}
