// The Gated DeltaNet's output norm's arithmetic, in one place so that every kernel that
// computes it (ssm_gnorm.comp, intdot/ssm_gnorm_quantize.comp through ssm_gnorm_common.glsl,
// and the recurrence's epilogue, ssm_gnorm_epilogue.glsl) writes the same bits:
//   y = o * inversesqrt(mean(o^2) + eps) * w * silu(z)
#ifndef PB_SSM_GNORM_MATH_GLSL
#define PB_SSM_GNORM_MATH_GLSL

// 1 / rms of a head of n elements whose squares sum to `squares`.
float ssm_gnorm_scale(float squares, uint n, float eps) { return inversesqrt(squares / float(n) + eps); }

// An element: its o, the head's scale, its weight and its gate.
float ssm_gnorm_value(float o, float scale, float w, float gate) {
  return (o * scale) * w * (gate / (1.0 + exp(-gate)));
}

#endif  // PB_SSM_GNORM_MATH_GLSL
