#include "engine/reference/glu_ref.h"

#include <cmath>

namespace pb::ref {

void glu(bool gelu_tanh, std::span<const float> gate, uint32_t gate_stride,
         std::span<const float> up, uint32_t up_stride, std::span<float> out, uint32_t out_stride,
         uint32_t n, uint32_t ncols) {
  const double sqrt_2_over_pi = std::sqrt(2.0 / 3.14159265358979323846);
  for (uint32_t c = 0; c < ncols; ++c) {
    for (uint32_t i = 0; i < n; ++i) {
      const double g = gate[size_t(c) * gate_stride + i];
      const double act = gelu_tanh ? 0.5 * g * (1.0 + std::tanh(sqrt_2_over_pi * (g + 0.044715 * g * g * g)))
                                   : g / (1.0 + std::exp(-g));
      out[size_t(c) * out_stride + i] = static_cast<float>(act * up[size_t(c) * up_stride + i]);
    }
  }
}

}  // namespace pb::ref
