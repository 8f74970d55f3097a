#version 450
// RMSNorm of activation columns: y[c] = x[c] * inversesqrt(mean(x[c]^2) + eps) * (w or 1 + w).
// One workgroup per column. Each invocation sums its strided share of squares in float (a few
// dozen terms at real hidden sizes), the workgroup combines them as a tree (subgroups, then
// subgroup partials), so the error stays at a few float ulps without double precision.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 256) in;
layout(constant_id = 0) const int ADD_ONE = 0;  // 1: scale by (1 + w), Gemma's stored weights

layout(binding = 0) readonly buffer X { float x[]; };   // column c at c * x_stride floats
layout(binding = 1) readonly buffer W { float w[]; };   // n weights
layout(binding = 2) writeonly buffer Y { float y[]; };  // column c at c * y_stride floats

layout(push_constant) uniform Push {
  uint n;         // elements per column
  uint x_stride;  // floats between x columns
  uint y_stride;  // floats between y columns
  float eps;      // added to the mean square
} pc;

#include "workgroup_reduce.glsl"

void main() {
  const uint xb = gl_WorkGroupID.x * pc.x_stride;
  const uint yb = gl_WorkGroupID.x * pc.y_stride;
  float squares = 0.0;
  for (uint i = gl_LocalInvocationID.x; i < pc.n; i += gl_WorkGroupSize.x) {
    const float v = x[xb + i];
    squares += v * v;
  }
  const float scale = inversesqrt(wg_sum(squares) / float(pc.n) + pc.eps);
  for (uint i = gl_LocalInvocationID.x; i < pc.n; i += gl_WorkGroupSize.x) {
    const float weight = ADD_ONE != 0 ? 1.0 + w[i] : w[i];
    y[yb + i] = (x[xb + i] * scale) * weight;
  }
}
