// A projection y (+)= W x over activation columns: the problem both the DMMV kernels and the
// tiled matmul solve (prefill chooses between them; decode always uses DMMV).
#pragma once

#include <cstdint>

#include "engine/ops/tensor_view.h"
#include "engine/quant/weight_format.h"

namespace pb {

// y[c][row] (+)= sum_k W[row][k] x[c][k] for c < ncols.
struct ProjectionProblem {
  WeightFormat format = WeightFormat::Q4_K;
  TensorView weights;       // rows × cols in `format`, row-major
  TensorView x;             // column c at float c * x_stride
  TensorView y;             // column c at float c * y_stride
  uint32_t rows = 0;
  uint32_t cols = 0;        // a multiple of the format's block size
  uint32_t ncols = 1;       // activation columns (tokens)
  uint32_t x_stride = 0;    // floats between x columns, a multiple of 4
  uint32_t y_stride = 0;    // floats between y columns
  bool accumulate = false;  // y += W x: the residual add fused into the projection
};

}  // namespace pb
