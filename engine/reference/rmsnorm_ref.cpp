#include "engine/reference/rmsnorm_ref.h"

#include <cmath>

namespace pb::ref {

void rmsnorm(std::span<const float> x, uint32_t n, uint32_t ncols, uint32_t x_stride,
             std::span<const float> w, bool add_one, float eps, std::span<float> y,
             uint32_t y_stride) {
  for (uint32_t c = 0; c < ncols; ++c) {
    const float* xc = x.data() + size_t(c) * x_stride;
    double squares = 0;
    for (uint32_t i = 0; i < n; ++i) squares += double(xc[i]) * xc[i];
    const double scale = 1.0 / std::sqrt(squares / n + double(eps));
    for (uint32_t i = 0; i < n; ++i) {
      const double weight = add_one ? 1.0 + double(w[i]) : double(w[i]);
      y[size_t(c) * y_stride + i] = static_cast<float>(xc[i] * scale * weight);
    }
  }
}

}  // namespace pb::ref
