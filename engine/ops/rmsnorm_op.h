// Op builder for RMSNorm over activation columns (kernels/rmsnorm.comp): attention and FFN
// norms, the final norm.
#pragma once

#include <cstdint>

#include "engine/ops/tensor_view.h"
#include "harness/op.h"

namespace pb {

struct RmsNormPush {
  uint32_t n;         // elements per column
  uint32_t x_stride;  // floats between x columns
  uint32_t y_stride;  // floats between y columns
  float eps;          // added to the mean square
};

// y[c] = x[c] * inversesqrt(mean(x[c]^2) + eps) * (weight or 1 + weight) for c < ncols.
struct RmsNormProblem {
  TensorView x;        // column c at float c * x_stride
  TensorView weight;   // n floats
  TensorView y;        // column c at float c * y_stride; not x
  uint32_t n = 0;
  uint32_t ncols = 1;
  uint32_t x_stride = 0;
  uint32_t y_stride = 0;
  float eps = 1e-6f;
  bool add_one = false;  // Gemma stores w with the 1 taken out
};

// A workgroup per 256 outputs of a column. Binds exactly the columns' span of x and y and n
// weights; throws UsageError for a view that is too small.
Op rmsnorm_op(const RmsNormProblem& problem);

}  // namespace pb
