#version 450
// Zeroes a range of 32-bit words: the recurrent states of SSM layers at the start of a prompt.
// A dispatch, not vkCmdFillBuffer, so the op stream stays a list of dispatches the harness
// schedules and the hazard ledger sees.
layout(local_size_x = 64) in;

layout(binding = 0) writeonly buffer Out { uint words[]; };
layout(push_constant) uniform Push { uint count; } pc;

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) words[i] = 0u;
}
