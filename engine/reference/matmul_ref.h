// CPU reference of the matmul kernels. A matmul computes exactly the DMMV's y (+)= W x over
// activation columns, so its reference is ref::dmmv (exact dequantization, float64 dot
// products); this name is where the matmul's tests and benchmarks look for it.
#pragma once

#include "engine/reference/dmmv_ref.h"

namespace pb::ref {

// y[c * y_stride + r] (+)= sum_k W[r][k] * x[c * x_stride + k] for r < rows, c < tokens.
inline void matmul(WeightFormat format, std::span<const uint8_t> weights, uint32_t rows, uint32_t cols,
                   std::span<const float> x, uint32_t tokens, uint32_t x_stride, std::span<float> y,
                   uint32_t y_stride, bool accumulate) {
  dmmv(format, weights, rows, cols, x, tokens, x_stride, y, y_stride, accumulate);
}

}  // namespace pb::ref
