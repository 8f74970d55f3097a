#version 450
// Greedy sampling, second pass: workgroup c reads the n_slices top twos argmax_partial.comp
// wrote for column c (invocation s takes slice s's, in increasing index order as the slices
// are) and reduces them as argmax.comp reduces logits (kernels/include/top2_body.glsl): the
// same token and top two as one workgroup over the whole column.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 1024) in;

layout(binding = 0) readonly buffer Partials { uvec4 partials[]; };
layout(binding = 1) writeonly buffer Tokens { uint tokens[]; };
layout(binding = 2) writeonly buffer Top2 { uvec4 top2[]; };  // one per column

layout(push_constant) uniform Push {
  uint n_slices;   // top twos per column, at most the workgroup size
  uint out_index;  // index in the tokens binding of column 0's token
} pc;

#include "workgroup_reduce.glsl"
#include "top2_body.glsl"

void main() {
  const uint c = gl_WorkGroupID.x, s = gl_LocalInvocationID.x;
  const TopTwo t = s < pc.n_slices ? unpacked_top_two(partials[c * pc.n_slices + s]) : empty_top_two();
  const uvec4 result = workgroup_top_two(t);
  if (s == 0) {
    tokens[pc.out_index + c] = result.x;
    top2[c] = result;
  }
}
