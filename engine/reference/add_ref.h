// CPU reference of the element-wise sum of activation columns: one float add per element,
// as the kernel, so they agree exactly.
#pragma once

#include <cstdint>
#include <span>

namespace pb::ref {

// y[c][i] = a[c][i] + b[c][i] for i < n, c < ncols. For y += b, pass y's contents as a.
void add(std::span<const float> a, uint32_t a_stride, std::span<const float> b, uint32_t b_stride,
         std::span<float> y, uint32_t y_stride, uint32_t n, uint32_t ncols);

}  // namespace pb::ref
