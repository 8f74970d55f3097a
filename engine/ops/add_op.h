// Op builders for the element-wise sum of activation columns (kernels/add.comp): the residual
// add where it is not fused into a projection.
#pragma once

#include <cstdint>

#include "engine/ops/tensor_view.h"
#include "harness/op.h"

namespace pb {

struct AddPush {
  uint32_t n;         // elements per column
  uint32_t a_stride;  // floats between a columns (unused in place)
  uint32_t b_stride;  // floats between b columns
  uint32_t y_stride;  // floats between y columns
};

// y[c][i] = a[c][i] + b[c][i] for i < n, c < ncols; y may be a separate buffer (or alias a).
struct AddProblem {
  TensorView a;
  TensorView b;
  TensorView y;
  uint32_t n = 0;
  uint32_t ncols = 1;
  uint32_t a_stride = 0;
  uint32_t b_stride = 0;
  uint32_t y_stride = 0;
};
Op add_op(const AddProblem& problem);

// y[c][i] += b[c][i]: y is bound read-write (spec IN_PLACE); the kernel's unused `a` binding
// repeats b's range, so the op declares exactly what it reads and writes.
struct AddInPlaceProblem {
  TensorView y;
  TensorView b;
  uint32_t n = 0;
  uint32_t ncols = 1;
  uint32_t y_stride = 0;
  uint32_t b_stride = 0;
};
Op add_in_place_op(const AddInPlaceProblem& problem);

}  // namespace pb
