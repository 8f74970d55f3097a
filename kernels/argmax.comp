#version 450
// Greedy sampling in one workgroup per column: tokens[out_index + c] = the index of the
// largest logit of column c, top2[c] = (index, bits of max, second index, bits of second) for
// the run's fingerprint (the rules and the reduction: kernels/include/top2_body.glsl). For a
// large vocabulary argmax_slices.comp spreads the column over many workgroups.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 1024) in;

layout(binding = 0) readonly buffer Logits { float logits[]; };  // column c at c * logits_stride
layout(binding = 1) writeonly buffer Tokens { uint tokens[]; };
layout(binding = 2) writeonly buffer Top2 { uvec4 top2[]; };      // one per column

layout(push_constant) uniform Push {
  uint vocab;          // logits per column
  uint logits_stride;  // floats between logits columns
  uint out_index;      // index in the tokens binding of column 0's token
} pc;

#include "workgroup_reduce.glsl"
#include "top2_body.glsl"

void main() {
  const uint c = gl_WorkGroupID.x;
  const uint base = c * pc.logits_stride;
  TopTwo t = empty_top_two();
  for (uint i = gl_LocalInvocationID.x; i < pc.vocab; i += gl_WorkGroupSize.x) offer(t, logits[base + i], i);
  const uvec4 result = workgroup_top_two(t);
  if (gl_LocalInvocationID.x == 0) {
    tokens[pc.out_index + c] = result.x;
    top2[c] = result;
  }
}
