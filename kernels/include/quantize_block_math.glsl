// The arithmetic of quantizing blocks of 32 activations to int8 (quantize_block.glsl says the
// scheme and why it is bit-exact): the block scale, the nearest quant, and the block's max and
// sum over the invocations that hold it. Apart from quantize_block.glsl's writers, so that a
// kernel whose bindings 1 and 2 are its own quantized input (a DMMV that quantizes its output,
// dmmv_intdot_norm_epilogue.glsl) can quantize into bindings of its own.
//
// Slots for blocks that span subgroups: QB_SCRATCH, a shared float array of at least the
// workgroup size that the includer no longer needs when it quantizes, or this file's own.
#ifndef PB_QUANTIZE_BLOCK_MATH_GLSL
#define PB_QUANTIZE_BLOCK_MATH_GLSL

// amax / 127 rounded up to 11 significant bits (an f16's precision, f32's range).
float block_scale(float amax) {
  const float d0 = amax * uintBitsToFloat(0x3c010204u);  // float(1 / 127)
  return uintBitsToFloat((floatBitsToUint(d0) + 0x1fffu) & ~0x1fffu);
}

// The integer nearest v / d, ties to even, for d > 0.
int nearest_quant(float v, float d, float inv_d) {
  float q = roundEven(v * inv_d);  // within 1 of the answer: inv_d is approximate
  const float above = (q + 0.5) * d, below = (q - 0.5) * d;  // exact (see the top)
  const bool odd = (int(q) & 1) != 0;
  if (v > above || (v == above && odd)) q += 1.0;
  else if (v < below || (v == below && odd)) q -= 1.0;
  return clamp(int(q), -127, 127);
}

uint pack4(int a, int b, int c, int d) {
  return uint(a & 255) | (uint(b & 255) << 8) | (uint(c & 255) << 16) | (uint(d & 255) << 24);
}

#extension GL_KHR_shader_subgroup_arithmetic : require
#include "lane_group_reduce.glsl"

// Where a block spans subgroups (subgroups narrower than the invocations that hold it:
// lavapipe's 8 lanes against the one-value form's 32), one slot per subgroup's share.
#ifdef QB_SCRATCH
#define QB_SLOTS QB_SCRATCH
#else
shared float qb_slots[gl_WorkGroupSize.x];
#define QB_SLOTS qb_slots
#endif

// The max (qb_block_max, of values >= 0) or sum (qb_block_sum) of `a` over the `width`
// invocations that hold one block: those whose subgroup_major_index() share index / width.
// Where one subgroup holds exactly the block (width == the subgroup size: NVIDIA's 32 lanes
// against the one-value form's block of 32, lavapipe's 8 against the four-value form's), by the
// subgroup's own reductions, which NVIDIA runs as one instruction each where butterflies take
// five shuffles (H200: llama3-8b int8 decode with the norms and GLU in the producers 457.7 ->
// 463.1 tok/s); any order of a max or an int sum gives the same result, and non-negative floats
// order as their bits do. Otherwise by lane_group_reduce.glsl, whose float slots carry a sum's
// shares exactly: |a| <= 32 * 127.
PB_LANE_GROUP_REDUCE(qb_lanes_max, float, max, QB_SLOTS)
PB_LANE_GROUP_REDUCE(qb_lanes_sum, int, lane_group_add, QB_SLOTS)

float qb_block_max(float a, uint width) {
  if (width == gl_SubgroupSize) return uintBitsToFloat(subgroupMax(floatBitsToUint(a)));
  return qb_lanes_max(a, width);
}
int qb_block_sum(int a, uint width) {
  if (width == gl_SubgroupSize) return subgroupAdd(a);
  return qb_lanes_sum(a, width);
}

// A block held one value per invocation, by `width` invocations in a row of
// subgroup_major_index(): its scale d, this invocation's quant of v, and the block's quant sum
// (what the writers store as (d, d * sum)). Every invocation of the workgroup calls it: the
// block reductions may have barriers.
struct BlockQuant {
  int q;
  float d;
  int sum;
};

BlockQuant quantize_in_block(float v, uint width) {
  const float amax = qb_block_max(abs(v), width);
  BlockQuant b;
  b.d = block_scale(amax);
  const float inv_d = amax > 0.0 ? 1.0 / b.d : 0.0;
  b.q = amax > 0.0 ? nearest_quant(v, b.d, inv_d) : 0;
  b.sum = qb_block_sum(b.q, width);
  return b;
}

#endif  // PB_QUANTIZE_BLOCK_MATH_GLSL
