#version 450
// Causal depthwise conv1d with SiLU over a chunk of tokens, its state carried across calls
// (Gated DeltaNet's short conv over the q, k, v channels):
//   y[t][ch] = silu(sum_{i < WIDTH} w[ch][i] * x_{t - (WIDTH - 1) + i}[ch])
// where inputs before this call's first token come from the state, which holds the channel's
// previous WIDTH - 1 inputs oldest first, and afterwards holds the last WIDTH - 1 inputs.
//
// One invocation per channel walks the chunk's tokens in order with its window in registers,
// so the whole chunk is one dispatch and no invocation waits on another. Reads of x and writes
// of y are coalesced across channels (consecutive invocations, consecutive channels). y must
// not alias x (restrict): a later token still reads inputs an earlier one would overwrite.
// The taps are summed in float in tap order (WIDTH terms: a few ulps), as ssm_conv_delta.comp
// sums them (ssm_conv_input.glsl).
#extension GL_GOOGLE_include_directive : require

#include "ssm_conv_silu.glsl"

layout(local_size_x = 64) in;
layout(constant_id = 0) const uint WIDTH = 4;  // taps per channel, 2..8

layout(binding = 0) restrict readonly buffer X { float x[]; };   // column t at t * x_stride
layout(binding = 1) restrict readonly buffer W { float w[]; };   // [channels][WIDTH]
layout(binding = 2) restrict buffer State { float state[]; };    // [channels][WIDTH - 1], oldest first
layout(binding = 3) restrict writeonly buffer Y { float y[]; };  // column t at t * y_stride

layout(push_constant) uniform Push {
  uint channels;  // channels per column
  uint ncols;     // tokens in this chunk
  uint x_stride;  // floats between x columns
  uint y_stride;  // floats between y columns
} pc;

void main() {
  const uint ch = gl_GlobalInvocationID.x;
  if (ch >= pc.channels) return;
  float taps[WIDTH];
  float window[WIDTH];  // window[WIDTH - 1] is the current token's input
  for (uint i = 0; i < WIDTH; ++i) taps[i] = w[ch * WIDTH + i];
  for (uint i = 0; i + 1 < WIDTH; ++i) window[i] = state[ch * (WIDTH - 1) + i];
  for (uint t = 0; t < pc.ncols; ++t) {
    window[WIDTH - 1] = x[t * pc.x_stride + ch];
    float acc = 0.0;
    for (uint i = 0; i < WIDTH; ++i) acc += taps[i] * window[i];
    y[t * pc.y_stride + ch] = ssm_conv_silu(acc);
    for (uint i = 0; i + 1 < WIDTH; ++i) window[i] = window[i + 1];
  }
  for (uint i = 0; i + 1 < WIDTH; ++i) state[ch * (WIDTH - 1) + i] = window[i];
}
