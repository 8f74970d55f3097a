// The causal conv and SiLU computed where its output is read (ssm_delta_body.glsl with
// SSM_CONV_INPUT): binding 0, `qkv`, holds the conv's input columns, and
//   y[t][ch] = silu(sum_{i < WIDTH} w[ch][i] * x_{t - (WIDTH - 1) + i}[ch])
// with the inputs before the chunk's first token taken from the state, as ssm_conv.comp does,
// the taps summed in the same order. Each window's newest WIDTH - 1 inputs are kept: after a
// chunk's last token they are the channel's state, as ssm_conv.comp leaves it.
#ifndef PB_SSM_CONV_INPUT_GLSL
#define PB_SSM_CONV_INPUT_GLSL

#include "ssm_conv_silu.glsl"

layout(constant_id = 5) const uint WIDTH = 4;  // taps per channel, 2..8 (kSsmMaxConvWidth)

layout(binding = 7) readonly buffer ConvWeight { float conv_w[]; };  // [channels][WIDTH]
layout(binding = 8) buffer ConvState { float conv_state[]; };        // [channels][WIDTH - 1], oldest first
// One count per key head of the workgroups that are done with its conv state; zero between
// dispatches (the last to arrive sets it back).
layout(binding = 9) buffer ConvArrivals { uint conv_arrivals[]; };

shared bool arrived_last;
uint arrival;  // invocation 0's: this workgroup's place among its key head's

// A window's newest inputs, at most 7 (the widest conv's state); WIDTH - 1 of them used.
struct ConvKept {
  float v[7];
};

// Input t' of channel ch, t' < 0 from the state (t' = -1 its newest).
float conv_input(int t, uint ch, uint stride) {
  return t < 0 ? conv_state[ch * (WIDTH - 1) + uint(int(WIDTH) - 1 + t)] : qkv[uint(t) * stride + ch];
}

float conv_silu_keeping(uint t, uint ch, uint stride, inout ConvKept kept) {
  float acc = 0.0;
  for (uint i = 0; i < WIDTH; ++i) {
    const float x = conv_input(int(t + i) - int(WIDTH - 1), ch, stride);
    acc += conv_w[ch * WIDTH + i] * x;
    if (i > 0) kept.v[i - 1] = x;
  }
  return ssm_conv_silu(acc);
}

void conv_state_store(uint ch, ConvKept kept) {
  for (uint i = 0; i + 1 < WIDTH; ++i) conv_state[ch * (WIDTH - 1) + i] = kept.v[i];
}

#endif  // PB_SSM_CONV_INPUT_GLSL
