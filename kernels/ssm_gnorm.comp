#version 450
// Gated RMSNorm of the Gated DeltaNet output, per value head and token:
//   y[t][h] = o[t][h] * inversesqrt(mean(o[t][h]^2) + eps) * w * silu(z[t][h])
// with one weight vector w[n] shared by all heads (include/ssm_gnorm_common.glsl). One
// workgroup per (head, token); any head size. y must overlap neither o nor z (the op builder
// checks).
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 128) in;

#include "workgroup_reduce.glsl"
#include "ssm_gnorm_common.glsl"

void main() {
  const uint head = gl_WorkGroupID.x * pc.n;
  const uint t = gl_WorkGroupID.y;
  const uint ob = t * pc.o_stride + head;
  const float scale = gnorm_scale(ob);
  const uint zb = t * pc.z_stride + head;
  const uint yb = t * pc.y_stride + head;
  for (uint i = gl_LocalInvocationID.x; i < pc.n; i += gl_WorkGroupSize.x) y[yb + i] = gnorm_value(ob, zb, i, scale);
}
