// Workgroup-wide reductions for kernels that give one workgroup a whole row, column or head:
// subgroup arithmetic inside each subgroup, then one shared slot per subgroup combined in
// subgroup order. Works for any subgroup size (8 on lavapipe, 32 on NVIDIA, 32 or 64 on RDNA)
// and hands every invocation the same bits, so a norm scale or a winner is workgroup-uniform.
//
// The includer declares its workgroup size (layout(local_size_x = N) in;) before including,
// and calls these from uniform control flow (every invocation of the workgroup).
#ifndef PB_WORKGROUP_REDUCE_GLSL
#define PB_WORKGROUP_REDUCE_GLSL

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

// One slot per subgroup, sized for the worst case of one invocation per subgroup: a few KiB
// at most, and it keeps the header free of any assumption about the subgroup size.
shared float wr_float_slots[gl_WorkGroupSize.x];
shared uint wr_uint_slots[gl_WorkGroupSize.x];

float wg_sum(float value) {
  const float partial = subgroupAdd(value);
  if (subgroupElect()) wr_float_slots[gl_SubgroupID] = partial;
  barrier();
  float total = 0.0;
  for (uint s = 0; s < gl_NumSubgroups; ++s) total += wr_float_slots[s];
  barrier();  // the slots are free again for the next reduction
  return total;
}

float wg_max(float value) {
  const float partial = subgroupMax(value);
  if (subgroupElect()) wr_float_slots[gl_SubgroupID] = partial;
  barrier();
  float best = wr_float_slots[0];
  for (uint s = 1; s < gl_NumSubgroups; ++s) best = max(best, wr_float_slots[s]);
  barrier();
  return best;
}

uint wg_min(uint value) {
  const uint partial = subgroupMin(value);
  if (subgroupElect()) wr_uint_slots[gl_SubgroupID] = partial;
  barrier();
  uint best = wr_uint_slots[0];
  for (uint s = 1; s < gl_NumSubgroups; ++s) best = min(best, wr_uint_slots[s]);
  barrier();
  return best;
}

#endif  // PB_WORKGROUP_REDUCE_GLSL
