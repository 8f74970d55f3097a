// The SiLU that ends the Gated DeltaNet's causal conv, in one place so that ssm_conv.comp and
// the conv inside ssm_conv_delta.comp (ssm_conv_input.glsl) round alike.
#ifndef PB_SSM_CONV_SILU_GLSL
#define PB_SSM_CONV_SILU_GLSL

float ssm_conv_silu(float acc) { return acc / (1.0 + exp(-acc)); }  // exp overflow gives -0, fine

#endif  // PB_SSM_CONV_SILU_GLSL
