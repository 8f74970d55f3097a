#include "tests/support/matmul_inputs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/support/random_matrix.h"

namespace pb::test {

MatmulInputs random_matmul_inputs(WeightFormat format, uint32_t rows, uint32_t cols, uint32_t tokens,
                                  uint32_t seed) {
  std::mt19937 rng(seed);
  Matrix w = random_matrix(format, rows, cols, rng);
  MatmulInputs in{std::move(w.bytes), std::move(w.dequantized), {}, {}, cols + 4, rows + 5};
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  in.x.resize(size_t(in.x_stride) * tokens);
  in.y.resize(size_t(in.y_stride) * tokens);
  for (auto& v : in.x) v = uniform(rng);
  for (auto& v : in.y) v = uniform(rng);
  return in;
}

namespace {

double magnitude(const MatmulInputs& in, uint32_t cols, uint32_t r, uint32_t c) {
  double m = 0;
  for (uint32_t k = 0; k < cols; ++k) {
    m += std::fabs(double(in.dequantized[size_t(r) * cols + k]) * in.x[size_t(c) * in.x_stride + k]);
  }
  return m;
}

}  // namespace

void expect_matmul_close(const MatmulInputs& in, uint32_t rows, uint32_t cols, uint32_t tokens,
                         const std::vector<float>& got, const std::vector<float>& expected, double rel, double abs) {
  for (uint32_t c = 0; c < tokens; ++c) {
    for (uint32_t r = 0; r < in.y_stride; ++r) {
      const size_t at = size_t(c) * in.y_stride + r;
      if (r >= rows) {
        ASSERT_EQ(got[at], in.y[at]) << "padding written at token " << c << " row " << r;
        continue;
      }
      ASSERT_NEAR(got[at], expected[at], rel * magnitude(in, cols, r, c) + abs) << "token " << c << " row " << r;
    }
  }
}

}  // namespace pb::test
