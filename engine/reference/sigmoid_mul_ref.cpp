#include "engine/reference/sigmoid_mul_ref.h"

#include <cmath>

namespace pb::ref {

void sigmoid_mul(std::span<const float> g, uint32_t g_stride, bool broadcast, std::span<float> y,
                 uint32_t y_stride, uint32_t n, uint32_t ncols) {
  for (uint32_t c = 0; c < ncols; ++c) {
    for (uint32_t i = 0; i < n; ++i) {
      const double gate = g[size_t(c) * g_stride + (broadcast ? 0 : i)];
      float& out = y[size_t(c) * y_stride + i];
      out = static_cast<float>(out / (1.0 + std::exp(-gate)));
    }
  }
}

}  // namespace pb::ref
