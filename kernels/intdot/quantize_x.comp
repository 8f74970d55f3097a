#version 450
// Quantizes activation columns for the integer-dot DMMV kernels: per block of 32 floats,
// d = max|x| / 127 (rounded up to 11 significant bits) and q[k] = the integer nearest x[k] / d
// (ties to even), in -127..127. One thread per block: the activations are a few kilobytes per
// column, so this dispatch costs its launch, not its arithmetic.
//
// Bit-exact on every Vulkan device (the CPU reference, engine/reference/dmmv_intdot_ref.cpp,
// reproduces it): float multiply is correctly rounded in Vulkan but divide is not (2.5 ULP),
// so no result depends on a division. d = amax * float(1/127), then its mantissa is rounded up
// to 11 significant bits, which makes (q + 0.5) * d exact; q comes from an approximate
// reciprocal and is then corrected by exact comparisons of x with (q +- 0.5) * d.
// Limits: x must be finite; blocks whose max |x| is below about 2^-100 may differ where a
// device flushes denormals.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 64) in;

layout(binding = 0) readonly buffer X { vec4 x4[]; };  // column c at c * x_stride floats
#define QX_QUANTS_BINDING 1
#define QX_SCALES_BINDING 2
#define QX_WRITE
#include "dmmv_intdot_quantized_x.glsl"

layout(push_constant) uniform Push {
  uint cols;      // floats per column, a multiple of 32
  uint ncols;     // columns
  uint x_stride;  // floats between x columns, a multiple of 4
  uint x_offset;  // floats from the x binding's start to column 0, a multiple of 4
} pc;  // the quants and scales bindings start at column 0

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

void main() {
  const uint id = gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x) + gl_GlobalInvocationID.x;
  const uint blocks = pc.cols / QX_BLOCK;
  if (id >= blocks * pc.ncols) return;
  const uint c = id / blocks, b = id % blocks;
  const uint first = (pc.x_offset + c * pc.x_stride + b * QX_BLOCK) >> 2;

  vec4 v[8];
  float amax = 0.0;
  for (int i = 0; i < 8; ++i) {
    v[i] = x4[first + i];
    const vec4 a = abs(v[i]);
    amax = max(amax, max(max(a.x, a.y), max(a.z, a.w)));
  }
  const float d = block_scale(amax);
  const float inv_d = amax > 0.0 ? 1.0 / d : 0.0;
  uint words[8];
  int sum = 0;
  for (int i = 0; i < 8; ++i) {
    ivec4 q = ivec4(0);
    if (amax > 0.0) {
      q = ivec4(nearest_quant(v[i].x, d, inv_d), nearest_quant(v[i].y, d, inv_d),
                nearest_quant(v[i].z, d, inv_d), nearest_quant(v[i].w, d, inv_d));
    }
    sum += q.x + q.y + q.z + q.w;
    words[i] = pack4(q.x, q.y, q.z, q.w);
  }
  const uint q_at = c * (pc.cols / 16) + b * 2;
  xq[q_at] = uvec4(words[0], words[1], words[2], words[3]);
  xq[q_at + 1] = uvec4(words[4], words[5], words[6], words[7]);
  xs[c * blocks + b] = vec2(d, d * float(sum));  // d * sum: exact (23 bits)
}
