#version 450
// The second dispatch of the cooperative-matrix matmul with K split across workgroups
// (matmul_coopmat_body.glsl, MATMUL_SPLIT_K): y(row, token) (+)= the sum of the splits' slots
// for that element (include/split_slots.glsl). One invocation per element; workgroup row y is
// the token.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 64) in;
layout(constant_id = 3) const int ACCUMULATE = 0;  // 1: y += the sum (the fused residual add)

layout(binding = 0) readonly buffer SplitSums { float split_sums[]; };
layout(binding = 1) buffer Y { float y[]; };

layout(push_constant) uniform Push {  // the matmul's (MatmulPush); cols, x_stride, x_offset unused
  uint rows;
  uint cols;
  uint ncols;
  uint x_stride;
  uint y_stride;
  uint row_base;
  uint x_offset;
  uint y_offset;
} pc;

#include "split_slots.glsl"

void main() {
  const uint row = gl_GlobalInvocationID.x, token = gl_WorkGroupID.y;
  if (row >= pc.rows) return;
  const float sum = split_slot_sum(row, token, pc.ncols);
  const uint out_at = pc.y_offset + token * pc.y_stride + pc.row_base + row;
  y[out_at] = ACCUMULATE != 0 ? y[out_at] + sum : sum;
}
