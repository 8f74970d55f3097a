// Shared pieces of the integer-dot DMMV tests (dmmv_intdot_test, dmmv_norm_fusion_test): the
// magnitude their tolerances scale with, and the activations a quantization stands for.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/reference/dmmv_intdot_ref.h"
#include "tests/support/random_matrix.h"

namespace pb::test {

// sum_k |w_k v_k| for row r of w (cols wide) and the column v.
inline double magnitude(const Matrix& w, uint32_t cols, uint32_t r, const float* v) {
  double m = 0;
  for (uint32_t k = 0; k < cols; ++k) m += std::fabs(double(w.dequantized[size_t(r) * cols + k]) * v[k]);
  return m;
}

// The activations d * q of quantized columns, back to back.
inline std::vector<float> dequantized_x(const ref::QuantizedXHost& q) {
  std::vector<float> x(q.quants.size());
  for (size_t k = 0; k < x.size(); ++k) x[k] = float(q.quants[k]) * q.scales[2 * (k / 32)];
  return x;
}

}  // namespace pb::test
