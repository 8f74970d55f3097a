// ATTN_THREAD: an attention invocation's number among the workgroup's threads. Where the kernel
// quantizes its output in its epilogue (QUANTIZE_OUTPUT), it is subgroup_major_index(), so that a
// block's values sit in neighbouring lanes of one subgroup and combine by shuffles
// (quantize_block.glsl); elsewhere the local invocation id, which the float kernels' shapes
// were tuned with. Every cross-thread step of the attention kernels goes through shared memory
// with explicit indices, so either numbering gives the same results.
#ifndef PB_ATTN_THREAD_GLSL
#define PB_ATTN_THREAD_GLSL

#ifdef QUANTIZE_OUTPUT
#include "subgroup_order.glsl"
#define ATTN_THREAD subgroup_major_index()
#else
#define ATTN_THREAD gl_LocalInvocationID.x
#endif

#endif  // PB_ATTN_THREAD_GLSL
