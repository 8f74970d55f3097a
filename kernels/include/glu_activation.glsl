// The gate activations of the FFN's gated linear unit, shared by glu.comp and
// intdot/glu_quantize.comp so both give the same bits. ACTIVATION is the includer's
// specialization constant (pb::GluActivation: 0 SiLU, 1 GELU with the tanh approximation).
// `precise` where a multiply feeds an add keeps compilers from fusing them differently in the
// two kernels.
#ifndef PB_GLU_ACTIVATION_GLSL
#define PB_GLU_ACTIVATION_GLSL

float silu(float g) { return g / (1.0 + exp(-g)); }

// 0.5 g (1 + tanh(sqrt(2/pi) (g + 0.044715 g^3))). The tanh argument is clamped to +-10
// (tanh is 1 to float precision there) because tanh built from exp turns inf/inf into NaN
// for large arguments on some implementations.
float gelu_tanh(float g) {
  precise const float inner = 0.7978845608028654 * (g + 0.044715 * g * g * g);
  return 0.5 * g * (1.0 + tanh(clamp(inner, -10.0, 10.0)));
}

float glu_value(float g, float u) { return (ACTIVATION == 0 ? silu(g) : gelu_tanh(g)) * u; }

#endif  // PB_GLU_ACTIVATION_GLSL
