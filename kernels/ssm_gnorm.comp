#version 450
// Gated RMSNorm of the Gated DeltaNet output, per value head and token:
//   y[t][h] = o[t][h] * inversesqrt(mean(o[t][h]^2) + eps) * w * silu(z[t][h])
// with one weight vector w[n] shared by all heads. One workgroup per (head, token); each
// invocation sums its strided share of squares in float and the workgroup combines them as a
// tree (workgroup_reduce.glsl), so any head size works and the error stays at a few ulps.
// y must overlap neither o nor z (the op builder checks).
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 128) in;

layout(binding = 0) readonly buffer O { float o[]; };   // column t at t * o_stride: [heads][n]
layout(binding = 1) readonly buffer Z { float z[]; };   // column t at t * z_stride: [heads][n]
layout(binding = 2) readonly buffer W { float w[]; };   // n weights, shared by all heads
layout(binding = 3) writeonly buffer Y { float y[]; };  // column t at t * y_stride: [heads][n]

layout(push_constant) uniform Push {
  uint n;         // elements per head (d_v)
  uint o_stride;  // floats between o columns
  uint z_stride;  // floats between z columns
  uint y_stride;  // floats between y columns
  float eps;      // added to the mean square
} pc;

#include "workgroup_reduce.glsl"

void main() {
  const uint head = gl_WorkGroupID.x * pc.n;
  const uint t = gl_WorkGroupID.y;
  const uint ob = t * pc.o_stride + head;
  float squares = 0.0;
  for (uint i = gl_LocalInvocationID.x; i < pc.n; i += gl_WorkGroupSize.x) {
    const float v = o[ob + i];
    squares += v * v;
  }
  const float scale = inversesqrt(wg_sum(squares) / float(pc.n) + pc.eps);
  const uint zb = t * pc.z_stride + head;
  const uint yb = t * pc.y_stride + head;
  for (uint i = gl_LocalInvocationID.x; i < pc.n; i += gl_WorkGroupSize.x) {
    const float gate = z[zb + i];
    y[yb + i] = (o[ob + i] * scale) * w[i] * (gate / (1.0 + exp(-gate)));
  }
}
