// Op builder for sigmoid gating in place (kernels/sigmoid_mul.comp): Qwen3.5's gated attention
// output (a gate per element) and its shared-expert gate (one gate per token).
#pragma once

#include <cstdint>

#include "engine/ops/tensor_view.h"
#include "harness/op.h"

namespace pb {

struct SigmoidMulPush {
  uint32_t n;         // elements per column of y
  uint32_t g_stride;  // floats between g columns
  uint32_t y_stride;  // floats between y columns
};

// y[c][i] *= sigmoid(g[c][i]) for i < n, c < ncols; with `broadcast`, y[c][i] *= sigmoid(g[c])
// where g[c] is the float at c * g_stride (a [ncols] vector when g_stride is 1).
struct SigmoidMulProblem {
  TensorView g;
  TensorView y;  // read and written
  uint32_t n = 0;
  uint32_t ncols = 1;
  uint32_t g_stride = 0;
  uint32_t y_stride = 0;
  bool broadcast = false;
};

Op sigmoid_mul_op(const SigmoidMulProblem& problem);

}  // namespace pb
