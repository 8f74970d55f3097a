// CPU reference of RMSNorm over activation columns, in float64.
#pragma once

#include <cstdint>
#include <span>

namespace pb::ref {

// y[c] = x[c] / sqrt(mean(x[c]^2) + eps) * (w or 1 + w), for columns c < ncols of n elements.
void rmsnorm(std::span<const float> x, uint32_t n, uint32_t ncols, uint32_t x_stride,
             std::span<const float> w, bool add_one, float eps, std::span<float> y,
             uint32_t y_stride);

}  // namespace pb::ref
