#version 450
// RMSNorm of activation columns: y[c] = x[c] * inversesqrt(mean(x[c]^2) + eps) * (w or 1 + w).
// Workgroup (x, y) writes slice x of column y (RMS_SLICE outputs). Each invocation sums its strided share of squares in float (a few
// dozen terms at real hidden sizes), the workgroup combines them as a tree (subgroups, then
// subgroup partials), so the error stays at a few float ulps without double precision. The
// arithmetic is in rmsnorm_body.glsl, which intdot/rmsnorm_quantize.comp shares.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 256) in;  // RMS_SLICE: one output per invocation
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
#include "rmsnorm_body.glsl"

void main() {
  const uint xb = gl_WorkGroupID.y * pc.x_stride;
  const uint yb = gl_WorkGroupID.y * pc.y_stride;
  const uint i = subgroup_major_global_index();  // this invocation's output (RMS_SLICE a workgroup)
  const float v = rmsnorm_output(xb, pc.n, pc.eps, i);
  if (i < pc.n) y[yb + i] = v;
}
