#version 450
// Reads a range of 16-byte words and keeps only their XOR: the floor under every kernel that
// streams its weights, without any of a kernel's arithmetic. phasebench-kernels times it at the
// byte counts of the weight matrices (kernels/bench/read_floor_bench.cpp), so a DMMV's time can
// be set against what reading as many bytes costs at that size and in that grid, not only
// against the copy bandwidth of a 1 GiB buffer.
//
// Workgroup g reads words [g W L, (g + 1) W L) (W invocations, L = LOADS): invocation t loads
// words t, t + W, ..., all L of them before it uses any, so each subgroup load is contiguous and
// every invocation keeps L loads in flight. The workgroup's XOR goes to folded[g], so no load
// can be dropped as dead.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;                  // W, invocations per workgroup
layout(constant_id = 1) const int LOADS = 8;     // L, words per invocation

layout(binding = 0) readonly buffer Src { uvec4 src[]; };
layout(binding = 1) writeonly buffer Folded { uint folded[]; };  // one word per workgroup

layout(push_constant) uniform Push {
  uint count;   // words to read
  uint groups;  // workgroups that read them (the grid may be padded past them)
} pc;

shared uint partial[gl_WorkGroupSize.x / 8];  // per subgroup; 8 is the narrowest (lavapipe)

void main() {
  const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  if (group >= pc.groups) return;  // the same for the whole workgroup: the barrier stays uniform
  const uint first = group * gl_WorkGroupSize.x * uint(LOADS) + gl_LocalInvocationID.x;
  uvec4 v[LOADS];
  [[unroll]] for (int k = 0; k < LOADS; ++k) {
    const uint i = first + uint(k) * gl_WorkGroupSize.x;
    v[k] = i < pc.count ? src[i] : uvec4(0u);
  }
  uvec4 acc = uvec4(0u);
  [[unroll]] for (int k = 0; k < LOADS; ++k) acc ^= v[k];
  const uint word = subgroupXor(acc.x ^ acc.y ^ acc.z ^ acc.w);
  if (subgroupElect()) partial[gl_SubgroupID] = word;
  barrier();
  if (gl_LocalInvocationID.x == 0u) {
    uint all = 0u;
    for (uint s = 0u; s < gl_NumSubgroups; ++s) all ^= partial[s];
    folded[group] = all;
  }
}
