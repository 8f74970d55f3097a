#version 450
// attn_decode_quantize.comp whose output is first divided by 1 + exp(-g), g the attention's output gate
// (Qwen3.5), as sigmoid_mul.comp does after it: one dispatch where attention, sigmoid_mul and
// quantize_x took three. The gate is the binding after the quantized output's.
#extension GL_GOOGLE_include_directive : require

#define QUANTIZE_OUTPUT
#define OUTPUT_GATE
#include "attn_decode_main.glsl"
