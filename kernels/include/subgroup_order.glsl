// An invocation's index in its workgroup counted subgroup by subgroup: consecutive indices are
// consecutive lanes of one subgroup. gl_LocalInvocationID.x does not promise that (Vulkan
// relates the two only through this formula, and only with full subgroups: SPIR-V 1.6, which
// the build targets, and a workgroup width that is a multiple of the subgroup size). Kernels
// whose neighbouring elements combine through subgroup shuffles (quantize_block.glsl) number
// their elements by it.
#ifndef PB_SUBGROUP_ORDER_GLSL
#define PB_SUBGROUP_ORDER_GLSL

#extension GL_KHR_shader_subgroup_basic : require

uint subgroup_major_index() { return gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID; }
// The same counted across the workgroups of a one-dimensional grid (row x of a 2D one).
uint subgroup_major_global_index() { return gl_WorkGroupID.x * gl_WorkGroupSize.x + subgroup_major_index(); }

#endif  // PB_SUBGROUP_ORDER_GLSL
