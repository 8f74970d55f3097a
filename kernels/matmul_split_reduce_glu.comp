#version 450
// The reduction of a split stacked gate and up projection (rows [0, n) gate, [n, 2n) up) with
// the gated unit after it: out(i, token) = act(gate sum) * (up sum), the sums as
// matmul_split_reduce.comp adds them (include/split_slots.glsl) and the unit as glu.comp applies
// it (glu_activation.glsl), so the bits are those of the reduction and glu as two dispatches;
// gate and up themselves are never written. One invocation per element; workgroup row y is the
// token.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 64) in;
layout(constant_id = 3) const int ACTIVATION = 0;  // pb::GluActivation: 0 SiLU, 1 GELU (tanh)

layout(binding = 0) readonly buffer SplitSums { float split_sums[]; };
layout(binding = 1) writeonly buffer Out { float out_values[]; };

layout(push_constant) uniform Push {
  uint n;           // elements per column of out: half the split op's rows
  uint ncols;       // tokens
  uint out_stride;  // floats between out columns
  uint out_offset;  // floats before the first column's first element
} pc;

#include "split_slots.glsl"
#include "glu_activation.glsl"

void main() {
  const uint i = gl_GlobalInvocationID.x, token = gl_WorkGroupID.y;
  if (i >= pc.n) return;
  const float gate = split_slot_sum(i, token, pc.ncols);
  const float up = split_slot_sum(pc.n + i, token, pc.ncols);
  out_values[pc.out_offset + token * pc.out_stride + i] = glu_value(gate, up);
}
