#version 450
// Greedy sampling over slices of the vocabulary, in one dispatch: workgroup (s, c) takes slice s
// of column c's logits, indices [s * slice, (s + 1) * slice), and writes its top two
// (kernels/include/top2_body.glsl) to partials[c * n_slices + s]. The column's last workgroup
// to finish, told by a counter, then reduces the n_slices top twos as one workgroup over the
// whole column would (the same token and top two), writes them, and sets the counter back to
// zero for the next dispatch (the buffer starts zeroed). No workgroup waits for another: the
// last one only learns that it is last, so nothing depends on workgroups running concurrently.
// A second dispatch used to combine the top twos; this one costs 3.5 us less (docs/GPU_FIGURES.md).
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 256) in;

layout(binding = 0) readonly buffer Logits { float logits[]; };  // column c at c * logits_stride
// The top twos from the start, and one arrival counter per column at word counter_word - c (the
// binding's last words, wherever this dispatch's top twos end). Coherent: the last workgroup
// reads what the others wrote in this dispatch.
layout(binding = 1) coherent buffer Partials { uvec4 partials[]; };
layout(binding = 1) coherent buffer Counters { uint partial_words[]; };
layout(binding = 2) writeonly buffer Tokens { uint tokens[]; };
layout(binding = 3) writeonly buffer Top2 { uvec4 top2[]; };  // one per column

layout(push_constant) uniform Push {
  uint vocab;          // logits per column
  uint logits_stride;  // floats between logits columns
  uint slice;          // logits per workgroup
  uint out_index;      // index in the tokens binding of column 0's token
  uint counter_word;   // word of column 0's arrival counter: the partials binding's last
} pc;

#include "workgroup_reduce.glsl"
#include "top2_body.glsl"

shared bool arrived_last;

void main() {
  const uint s = gl_WorkGroupID.x, c = gl_WorkGroupID.y, n_slices = gl_NumWorkGroups.x;
  const uint base = c * pc.logits_stride;
  const uint end = min((s + 1) * pc.slice, pc.vocab);
  TopTwo t = empty_top_two();
  for (uint i = s * pc.slice + gl_LocalInvocationID.x; i < end; i += gl_WorkGroupSize.x) offer(t, logits[base + i], i);
  const uvec4 slice_top_two = workgroup_top_two(t);
  if (gl_LocalInvocationID.x == 0) {
    partials[c * n_slices + s] = slice_top_two;
    memoryBarrierBuffer();  // the top two is visible before the count says it is there
    arrived_last = atomicAdd(partial_words[pc.counter_word - c], 1u) == n_slices - 1u;
    memoryBarrierBuffer();  // and the others' reads below come after the count
  }
  barrier();
  if (!arrived_last) return;  // the whole workgroup: arrived_last is shared

  // Each invocation offers its slices' top twos in increasing slice order, winner then
  // second: the order top2_body.glsl's tie rule (lowest index) needs.
  TopTwo u = empty_top_two();
  for (uint k = gl_LocalInvocationID.x; k < n_slices; k += gl_WorkGroupSize.x) {
    const TopTwo p = unpacked_top_two(partials[c * n_slices + k]);
    if (p.i1 != NONE) offer(u, p.v1, p.i1);
    if (p.i2 != NONE) offer(u, p.v2, p.i2);
  }
  const uvec4 result = workgroup_top_two(u);
  if (gl_LocalInvocationID.x == 0) {
    tokens[pc.out_index + c] = result.x;
    top2[c] = result;
    partial_words[pc.counter_word - c] = 0u;  // for the next dispatch, ordered by its barrier
  }
}
