// Op builder for the token-embedding lookup (kernels/embed.comp).
#pragma once

#include <cstdint>

#include "engine/ops/binding_limits.h"
#include "engine/ops/tensor_view.h"
#include "engine/quant/weight_format.h"
#include "harness/op.h"

namespace pb {

struct EmbedPush {
  uint32_t hidden;    // elements per table row and per x column
  uint32_t vocab;     // rows of the table; a token id >= vocab yields NaN, never a wild read
  uint32_t token0;    // index in the tokens binding of column 0's token id
  uint32_t x_stride;  // floats between x columns
  float scale;        // multiplier of every element
};

// x[c][i] = dequant(table row tokens[pos0 + c])[i] * scale for i < hidden, c < ncols.
struct EmbedProblem {
  WeightFormat format = WeightFormat::Q4_K;
  TensorView table;   // vocab rows of `hidden` weights in `format`, row-major
  TensorView tokens;  // uint32 token ids by position
  TensorView x;       // column c at float c * x_stride
  uint32_t vocab = 0;
  uint32_t hidden = 0;  // a multiple of the format's block size
  uint32_t pos0 = 0;    // position of column 0
  uint32_t ncols = 1;
  uint32_t x_stride = 0;
  float scale = 1.0f;  // sqrt(hidden) for Gemma, 1 otherwise
};

// Binds the table, the aligned window of tokens that holds [pos0, pos0 + ncols) (so the op
// does not appear to read ids written later, such as the next decode token's), and the x
// columns. Throws UsageError for a table beyond 4 GiB or the binding range (the kernel
// addresses bytes in 32 bits) or a view that is too small.
Op embed_op(const EmbedProblem& problem, const BindingLimits& limits);

}  // namespace pb
