#version 450
// Greedy sampling, first pass: workgroup (s, c) takes slice s of column c's logits, indices
// [s * slice, (s + 1) * slice), and writes its top two (kernels/include/top2_body.glsl) to
// partials[c * n_slices + s] for argmax_combine.comp. Many workgroups read the vocabulary at
// once, where one workgroup per column reads it at one SM's pace.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 256) in;

layout(binding = 0) readonly buffer Logits { float logits[]; };  // column c at c * logits_stride
layout(binding = 1) writeonly buffer Partials { uvec4 partials[]; };

layout(push_constant) uniform Push {
  uint vocab;          // logits per column
  uint logits_stride;  // floats between logits columns
  uint slice;          // logits per workgroup
} pc;

#include "workgroup_reduce.glsl"
#include "top2_body.glsl"

void main() {
  const uint s = gl_WorkGroupID.x, c = gl_WorkGroupID.y;
  const uint base = c * pc.logits_stride;
  const uint end = min((s + 1) * pc.slice, pc.vocab);
  TopTwo t = empty_top_two();
  for (uint i = s * pc.slice + gl_LocalInvocationID.x; i < end; i += gl_WorkGroupSize.x) offer(t, logits[base + i], i);
  const uvec4 result = workgroup_top_two(t);
  if (gl_LocalInvocationID.x == 0) partials[c * gl_NumWorkGroups.x + s] = result;
}
