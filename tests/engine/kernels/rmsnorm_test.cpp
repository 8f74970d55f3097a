// RMSNorm kernel against the float64 reference: sizes that are and are not multiples of the
// 256-invocation workgroup, several columns with padded strides, both weight conventions
// (w and Gemma's 1 + w), and inputs of large magnitude (the float sum of squares must stay
// accurate). Tolerance: 1e-5 relative per element (the float32 tree sum of squares and
// inversesqrt are good to a few ulps; measured worst ~1e-6).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/ops/rmsnorm_op.h"
#include "engine/reference/rmsnorm_ref.h"
#include "harness/errors.h"
#include "tests/engine/kernels/elementwise_fixture.h"

namespace pb::test {
namespace {

struct RmsNormCase {
  uint32_t n, ncols;
  bool add_one;
  float magnitude;  // inputs uniform in [-magnitude, magnitude]
};

void PrintTo(const RmsNormCase& c, std::ostream* os) {
  *os << "n=" << c.n << " ncols=" << c.ncols << (c.add_one ? " 1+w" : " w") << " |x|<=" << c.magnitude;
}

class RmsNormTest : public GpuTest, public ::testing::WithParamInterface<RmsNormCase> {};

TEST_P(RmsNormTest, MatchesTheReference) {
  const RmsNormCase& p = GetParam();
  std::mt19937 rng(7 + p.n + p.ncols);
  const uint32_t x_stride = p.n + 5, y_stride = p.n + 3;
  const auto x = random_columns(p.n, p.ncols, x_stride, -p.magnitude, p.magnitude, rng);
  const auto w = random_columns(p.n, 1, p.n, -1.0f, 1.0f, rng);
  const std::vector<float> y0(size_t(p.ncols) * y_stride, kPadding);
  Buffer xb = upload_floats(x, "x"), wb = upload_floats(w, "w"), yb = upload_floats(y0, "y");
  const float eps = 1e-6f;
  const Op op = rmsnorm_op({TensorView::whole(xb), TensorView::whole(wb), TensorView::whole(yb),
                            p.n, p.ncols, x_stride, y_stride, eps, p.add_one});
  run_ops(std::span(&op, 1));
  const auto gpu = download_floats(yb, y0.size());

  std::vector<float> expected = y0;
  ref::rmsnorm(x, p.n, p.ncols, x_stride, w, p.add_one, eps, expected, y_stride);
  expect_padding_kept(gpu, y0, p.n, y_stride, "y");
  double worst = 0;
  for (uint32_t c = 0; c < p.ncols; ++c) {
    for (uint32_t i = 0; i < p.n; ++i) {
      const size_t at = size_t(c) * y_stride + i;
      ASSERT_NEAR(gpu[at], expected[at], 1e-5 * std::fabs(expected[at]) + 1e-30)
          << "column " << c << " element " << i;
      worst = std::max(worst, std::fabs(gpu[at] - expected[at]) / (std::fabs(expected[at]) + 1e-30));
    }
  }
  record_worst("worst_rel_error", worst);
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, RmsNormTest,
    ::testing::Values(RmsNormCase{1, 2, false, 1.0f}, RmsNormCase{7, 3, true, 1.0f},
                      RmsNormCase{256, 1, false, 1.0f}, RmsNormCase{1000, 5, false, 1.0f},
                      RmsNormCase{2048, 2, true, 1.0f}, RmsNormCase{5376, 3, true, 1.0f},
                      RmsNormCase{4096, 2, false, 3000.0f}));

TEST(RmsNormOp, RejectsAViewTooSmallForItsColumns) {
  Buffer x(device(), 4 * 100, MemoryUse::Device, "x");
  Buffer w(device(), 4 * 64, MemoryUse::Device, "w");
  EXPECT_THROW(rmsnorm_op({TensorView::whole(x), TensorView::whole(w), TensorView::whole(x), 64,
                           2, 64, 64, 1e-6f, false}),
               UsageError);
}

}  // namespace
}  // namespace pb::test
