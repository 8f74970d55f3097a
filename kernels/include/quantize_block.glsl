// Blocks of 32 activations to int8 for the integer-dot DMMV kernels: d = max|x| / 127
// (rounded up to 11 significant bits) and q[k] = the integer nearest x[k] / d (ties to even),
// in -127..127. Shared by intdot/quantize_x.comp and the kernels that quantize what they
// produce (intdot/rmsnorm_quantize.comp, intdot/glu_quantize.comp), so every path writes the
// same bits for the same values.
//
// Bit-exact on every Vulkan device (the CPU reference, engine/reference/dmmv_intdot_ref.cpp,
// reproduces it): float multiply is correctly rounded in Vulkan but divide is not (2.5 ULP),
// so no result depends on a division. d = amax * float(1/127), then its mantissa is rounded up
// to 11 significant bits, which makes (q + 0.5) * d exact; q comes from an approximate
// reciprocal and is then corrected by exact comparisons of x with (q +- 0.5) * d.
// Limits: x must be finite; blocks whose max |x| is below about 2^-100 may differ where a
// device flushes denormals.
//
// The includer includes dmmv_intdot_quantized_x.glsl with QX_WRITE first.
#ifndef PB_QUANTIZE_BLOCK_GLSL
#define PB_QUANTIZE_BLOCK_GLSL

// The includer's QB4_SCRATCH (a shared float array of at least the workgroup size that it no
// longer needs) holds a block's shares where it spans subgroups; without it, a file's own.
#ifdef QB4_SCRATCH
#define QB_SCRATCH QB4_SCRATCH
#endif
#include "quantize_block_math.glsl"

#ifndef QB4_SCRATCH
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require

// The quants as bytes: each invocation stores its own (a subgroup's 32 stores of one block are
// one contiguous 32-byte write), so no invocation gathers its neighbours' quants.
layout(binding = QX_QUANTS_BINDING) writeonly buffer XQuantBytes { int8_t xq_bytes[]; };

// Blocks quantized by the workgroup together, one value per invocation: value `v` is element
// `i` of column `c` (columns of `cols` activations), held by the invocation whose
// subgroup_major_index() is i mod the workgroup size (subgroup_major_global_index()), so a
// block is 32 consecutive lanes of one subgroup, or all lanes of consecutive subgroups. The
// same functions on the same values as a thread that quantizes the block alone (max and integer
// sums are exact in any order), so the same bits as the CPU reference's.
//
// Every invocation of the workgroup calls it (it may have barriers); `valid` is false for the
// blocks past the end of the data (whole blocks: the includer's widths are multiples of 32).
// The includer's workgroup size is a multiple of 32 and of the subgroup size.
void quantize_blocks_cooperative(float v, bool valid, uint c, uint i, uint cols) {
  const BlockQuant b = quantize_in_block(v, QX_BLOCK);
  if (valid) xq_bytes[c * cols + i] = int8_t(b.q);
  if (valid && i % QX_BLOCK == 0u) {
    xs[c * (cols / QX_BLOCK) + i / QX_BLOCK] = vec2(b.d, b.d * float(b.sum));  // d * sum: exact (23 bits)
  }
}
#else
// Blocks quantized by the workgroup together, four values per invocation (an includer that
// computes vec4s: attention's epilogues, which define QB4_SCRATCH). The invocations whose
// subgroup_major_index() is 8k .. 8k + 7 hold the 32 values of one block, in order (x, y, z, w
// of 8k first): the includer numbers its items by that index. The same functions on the same
// values as the one-value form, so the same bits. Every invocation calls it; `valid` false:
// nothing written for its group.
void quantize_blocks_cooperative4(vec4 v, bool valid, uint c, uint block, uint cols) {
  const uint lane = subgroup_major_index() % 8u;
  const float amax = qb_block_max(max(max(abs(v.x), abs(v.y)), max(abs(v.z), abs(v.w))), 8u);
  const float d = block_scale(amax);
  const float inv_d = amax > 0.0 ? 1.0 / d : 0.0;
  ivec4 q = ivec4(0);
  if (amax > 0.0) {
    q = ivec4(nearest_quant(v.x, d, inv_d), nearest_quant(v.y, d, inv_d), nearest_quant(v.z, d, inv_d),
              nearest_quant(v.w, d, inv_d));
  }
  if (valid) xq[c * (cols / 16u) + block * 2u + lane / 4u][lane % 4u] = pack4(q.x, q.y, q.z, q.w);
  const int sum = qb_block_sum(q.x + q.y + q.z + q.w, 8u);
  if (valid && lane == 0u) xs[c * (cols / QX_BLOCK) + block] = vec2(d, d * float(sum));  // d * sum: exact (23 bits)
}
#endif  // QB4_SCRATCH

#endif  // PB_QUANTIZE_BLOCK_GLSL
