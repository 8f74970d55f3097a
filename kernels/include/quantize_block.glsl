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

#ifndef QB4_SCRATCH
// Blocks quantized by the workgroup together, one value per invocation: invocations
// 32k .. 32k + 31 hold the 32 values of one block (`block` is its index in column `c`, columns
// of `cols` activations). The block's max |x| and quant sum are combined through shared memory,
// each invocation rounds its own value, and every 16th stores 16 quants. The same functions on
// the same values as a thread that quantizes a whole block alone (max and integer sums are
// exact in any order), so the bits are the same, and a column is spread over many invocations
// instead of one per 32 values.
//
// Every invocation of the workgroup calls it (it has barriers); `valid` is false for the
// blocks past the end of the data (whole blocks: the includer's widths are multiples of 32).
// The includer's workgroup size is a multiple of 32.
shared float qb_amax[gl_WorkGroupSize.x];
shared int qb_quant[gl_WorkGroupSize.x];

void quantize_blocks_cooperative(float v, bool valid, uint c, uint block, uint cols) {
  const uint t = gl_LocalInvocationID.x, lane = t % QX_BLOCK, first = t - lane;
  qb_amax[t] = abs(v);
  barrier();
  for (uint half_width = QX_BLOCK / 2; half_width > 0; half_width >>= 1) {
    if (lane < half_width) qb_amax[t] = max(qb_amax[t], qb_amax[t + half_width]);
    barrier();
  }
  const float amax = qb_amax[first];
  const float d = block_scale(amax);
  const float inv_d = amax > 0.0 ? 1.0 / d : 0.0;
  qb_quant[t] = amax > 0.0 ? nearest_quant(v, d, inv_d) : 0;
  barrier();
  if (valid && lane % 16 == 0) {
    uvec4 words;
    for (uint j = 0; j < 4; ++j) {
      const uint at = t + 4 * j;
      words[j] = pack4(qb_quant[at], qb_quant[at + 1], qb_quant[at + 2], qb_quant[at + 3]);
    }
    xq[c * (cols / 16) + block * 2 + lane / 16] = words;
  }
  if (valid && lane == 0) {
    int sum = 0;
    for (uint k = 0; k < QX_BLOCK; ++k) sum += qb_quant[first + k];
    xs[c * (cols / QX_BLOCK) + block] = vec2(d, d * float(sum));  // d * sum: exact (23 bits)
  }
  barrier();  // the shared arrays are free again for the next call
}
#else
// Blocks quantized by the workgroup together, four values per invocation (an includer that
// computes vec4s: attention's epilogues), for an includer that defines QB4_SCRATCH to the name
// of a shared float array of at least the workgroup size it no longer needs (no shared memory
// of this file's own). Invocations 8k .. 8k + 7 hold the 32 values of one block, in order
// (x, y, z, w of 8k first). The same functions on the same values as the one-value form, so
// the same bits. Every invocation calls it; `valid` false: nothing written for its group.
void quantize_blocks_cooperative4(vec4 v, bool valid, uint c, uint block, uint cols) {
  const uint t = gl_LocalInvocationID.x, lane = t % 8u, first = t - lane;
  barrier();  // the includer's last reads of the scratch are done
  QB4_SCRATCH[t] = max(max(abs(v.x), abs(v.y)), max(abs(v.z), abs(v.w)));
  barrier();
  for (uint half_width = 4u; half_width > 0u; half_width >>= 1) {
    if (lane < half_width) QB4_SCRATCH[t] = max(QB4_SCRATCH[t], QB4_SCRATCH[t + half_width]);
    barrier();
  }
  const float amax = QB4_SCRATCH[first];
  barrier();  // everyone has its block's max before the scratch holds sums
  const float d = block_scale(amax);
  const float inv_d = amax > 0.0 ? 1.0 / d : 0.0;
  ivec4 q = ivec4(0);
  if (amax > 0.0) {
    q = ivec4(nearest_quant(v.x, d, inv_d), nearest_quant(v.y, d, inv_d), nearest_quant(v.z, d, inv_d),
              nearest_quant(v.w, d, inv_d));
  }
  QB4_SCRATCH[t] = float(q.x + q.y + q.z + q.w);  // |sum| <= 508: exact
  barrier();
  if (valid) xq[c * (cols / 16u) + block * 2u + lane / 4u][lane % 4u] = pack4(q.x, q.y, q.z, q.w);
  if (valid && lane == 0u) {
    int sum = 0;
    for (uint k = 0u; k < 8u; ++k) sum += int(QB4_SCRATCH[first + k]);
    xs[c * (cols / QX_BLOCK) + block] = vec2(d, d * float(sum));  // d * sum: exact (23 bits)
  }
  barrier();  // the scratch is free again
}
#endif  // QB4_SCRATCH

#endif  // PB_QUANTIZE_BLOCK_GLSL
