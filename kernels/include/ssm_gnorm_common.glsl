// What the Gated DeltaNet's output norm and its quantizing twin share (ssm_gnorm.comp,
// intdot/ssm_gnorm_quantize.comp): the bindings of o, z, w and y, the push constants, the
// head's norm scale and the gated value, so both write the same bits of y.
//   y[t][h] = o[t][h] * inversesqrt(mean(o[t][h]^2) + eps) * w * silu(z[t][h])
// One workgroup per (head, token) of 128 invocations; the includer declares the workgroup size
// and includes workgroup_reduce.glsl first.
#ifndef PB_SSM_GNORM_COMMON_GLSL
#define PB_SSM_GNORM_COMMON_GLSL

#include "ssm_gnorm_math.glsl"

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

// 1 / rms of the head whose first element is o[ob]: each invocation sums its strided share of
// squares in float and the workgroup combines them as a tree, so any head size works and the
// error stays at a few ulps. Every invocation calls it (it has barriers).
float gnorm_scale(uint ob) {
  float squares = 0.0;
  for (uint i = gl_LocalInvocationID.x; i < pc.n; i += gl_WorkGroupSize.x) {
    const float v = o[ob + i];
    squares += v * v;
  }
  return ssm_gnorm_scale(wg_sum(squares), pc.n, pc.eps);
}

// Element i of the head: its o at ob, its gate at zb.
float gnorm_value(uint ob, uint zb, uint i, float scale) {
  return ssm_gnorm_value(o[ob + i], scale, w[i], z[zb + i]);
}

#endif  // PB_SSM_GNORM_COMMON_GLSL
