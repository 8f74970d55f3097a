// CPU reference of the DMMV kernels: each weight row dequantized exactly, dot products in
// float64.
#pragma once

#include <cstdint>
#include <span>

#include "engine/quant/weight_format.h"

namespace pb::ref {

// y[c * y_stride + r] (+)= sum_k W[r][k] * x[c * x_stride + k] for r < rows, c < ncols.
void dmmv(WeightFormat format, std::span<const uint8_t> weights, uint32_t rows, uint32_t cols,
          std::span<const float> x, uint32_t ncols, uint32_t x_stride, std::span<float> y,
          uint32_t y_stride, bool accumulate);

}  // namespace pb::ref
