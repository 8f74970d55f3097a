// Op builder for the Gated DeltaNet causal conv1d + SiLU (kernels/ssm_conv.comp), phase
// ssm_conv: all tokens of a chunk in one dispatch, the per-layer conv state carried across
// calls (later chunks and decode steps continue from it).
#pragma once

#include <cstdint>

#include "engine/ops/tensor_view.h"
#include "harness/op.h"

namespace pb {

struct SsmConvPush {
  uint32_t channels;  // channels per column (SsmShape::channels())
  uint32_t ncols;     // tokens in the chunk
  uint32_t x_stride;  // floats between x columns
  uint32_t y_stride;  // floats between y columns
};

// For token c < ncols and channel ch < channels:
//   y[c][ch] = silu(sum_{i < width} weight[ch][i] * x_{c - (width - 1) + i}[ch]),
// inputs before column 0 taken from `state`, which is left holding the last width - 1 inputs.
struct SsmConvProblem {
  TensorView x;       // column c at float c * x_stride: channels floats (q, k, v)
  TensorView weight;  // [channels][width] f32
  TensorView state;   // [channels][width - 1] f32, oldest first; read and written
  TensorView y;       // column c at float c * y_stride; must not overlap x
  uint32_t channels = 0;
  uint32_t width = 4;  // taps, 2..8 (kSsmMaxConvWidth); the kernel's specialization constant
  uint32_t ncols = 1;
  uint32_t x_stride = 0;
  uint32_t y_stride = 0;
};

// Groups ceil(channels / 64). Phase SsmConv; the caller sets layer and token. Throws UsageError
// for a width outside 2..8, a view that is too small, or y overlapping x.
Op ssm_conv_op(const SsmConvProblem& problem);

}  // namespace pb
