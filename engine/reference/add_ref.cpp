#include "engine/reference/add_ref.h"

namespace pb::ref {

void add(std::span<const float> a, uint32_t a_stride, std::span<const float> b, uint32_t b_stride,
         std::span<float> y, uint32_t y_stride, uint32_t n, uint32_t ncols) {
  for (uint32_t c = 0; c < ncols; ++c) {
    for (uint32_t i = 0; i < n; ++i) {
      y[size_t(c) * y_stride + i] = a[size_t(c) * a_stride + i] + b[size_t(c) * b_stride + i];
    }
  }
}

}  // namespace pb::ref
