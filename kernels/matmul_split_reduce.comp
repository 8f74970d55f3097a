#version 450
// The second dispatch of the cooperative-matrix matmul with K split across workgroups
// (matmul_coopmat_body.glsl, MATMUL_SPLIT_K): y(row, token) (+)= the sum of the splits' slots
// for that element, added in split order so the result does not depend on which workgroup
// finished first. One invocation per element; workgroup row y is the token.
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 64) in;
layout(constant_id = 0) const uint SPLITS = 2;
layout(constant_id = 1) const uint BM = 128;     // the split kernel's tile: rows
layout(constant_id = 2) const uint BN = 128;     // and tokens
layout(constant_id = 3) const int ACCUMULATE = 0;  // 1: y += the sum (the fused residual add)

// Tile t = (row / BM) * token tiles + token / BN holds SPLITS slots of BM x BN sums, [token][row].
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

void main() {
  const uint row = gl_GlobalInvocationID.x, token = gl_WorkGroupID.y;
  if (row >= pc.rows) return;
  const uint token_tiles = (pc.ncols + BN - 1) / BN;
  const uint tile = (row / BM) * token_tiles + token / BN;
  const uint at = tile * SPLITS * BM * BN + (token % BN) * BM + row % BM;
  float sum = 0.0;
  [[unroll]] for (uint z = 0; z < SPLITS; ++z) sum += split_sums[at + z * BM * BN];
  const uint out_at = pc.y_offset + token * pc.y_stride + pc.row_base + row;
  y[out_at] = ACCUMULATE != 0 ? y[out_at] + sum : sum;
}
