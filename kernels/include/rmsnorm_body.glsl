// The arithmetic of RMSNorm, shared by rmsnorm.comp and intdot/rmsnorm_quantize.comp so that
// both give the same bits: the int8 path quantizes exactly the y the float path would read.
//
// A column's outputs are cut into slices of RMS_SLICE, one workgroup each, so a decode column is
// spread over several SMs; every workgroup of the column computes the same scale (the column
// is a few KiB, read again from the cache), in the same order, so the same bits.
//
// rmsnorm_scale: each invocation sums the squares of elements s, s + WG, s + 2 WG, ... in that
// order (s = subgroup_major_index(), which callers number their own output by too), then the
// workgroup adds the partials as a tree (workgroup_reduce.glsl). Loads are issued RMS_BATCH at
// a time before any is used, so a decode column costs a few memory latencies rather than
// n / WG of them one after another (the one-load-per-iteration loop took ~11 us per 4096-wide
// column on an H200, its launch ~3 us); 16 cover a 4096-wide column in one batch. An
// invocation's own output element (its slice's, `own`) is among those it loads: it keeps that
// value instead of reading x again after the reduction, one memory latency less.
//
// The includer declares local_size_x = RMS_SLICE, the ADD_ONE specialization constant, the
// float buffers x[] and w[], and includes workgroup_reduce.glsl first.
#ifndef PB_RMSNORM_BODY_GLSL
#define PB_RMSNORM_BODY_GLSL

#include "subgroup_order.glsl"

const uint RMS_BATCH = 16;
const uint RMS_SLICE = 256;  // outputs per workgroup: one per invocation

// The scale of the column whose input starts at xb, and x[xb + own] in own_x (0 past n).
float rmsnorm_scale(uint xb, uint n, float eps, uint own, out float own_x) {
  const uint step = gl_WorkGroupSize.x;
  own_x = 0.0;
  precise float squares = 0.0;  // no fused multiply-add: every includer sums the same bits
  for (uint base = subgroup_major_index(); base < n; base += step * RMS_BATCH) {
    float v[RMS_BATCH];
    for (uint k = 0; k < RMS_BATCH; ++k) {
      const uint i = base + k * step;
      v[k] = i < n ? x[xb + i] : 0.0;
    }
    for (uint k = 0; k < RMS_BATCH; ++k) {
      squares += v[k] * v[k];  // + 0.0 past n: no change
      if (base + k * step == own) own_x = v[k];
    }
  }
  return inversesqrt(wg_sum(squares) / float(n) + eps);
}

float rmsnorm_weight(uint i) { return ADD_ONE != 0 ? 1.0 + w[i] : w[i]; }

// Output i (0 past n) of the column whose input starts at xb: its weight is loaded before the
// reduction, and its input comes from the sum's loads. Every invocation of the workgroup calls
// it (the reduction has barriers).
float rmsnorm_output(uint xb, uint n, float eps, uint i) {
  const float weight = i < n ? rmsnorm_weight(i) : 0.0;  // in flight during the reduction
  float xi;
  const float scale = rmsnorm_scale(xb, n, eps, i, xi);
  return i < n ? (xi * scale) * weight : 0.0;
}

#endif  // PB_RMSNORM_BODY_GLSL
