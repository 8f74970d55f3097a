// Sigmoid gating against the float64 reference: a gate per element and one gate per column
// (broadcast, from a [ncols] vector and from a strided buffer), sizes that are not multiples
// of the 256-invocation workgroup, several padded columns, and gates out in both tails.
// Tolerance: 2e-6 relative (float exp and one division, a few ulps).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/ops/sigmoid_mul_op.h"
#include "engine/reference/sigmoid_mul_ref.h"
#include "tests/engine/kernels/elementwise_fixture.h"

namespace pb::test {
namespace {

struct SigmoidMulCase {
  uint32_t n, ncols, g_stride;
  bool broadcast;
};

void PrintTo(const SigmoidMulCase& c, std::ostream* os) {
  *os << "n=" << c.n << " ncols=" << c.ncols << " g_stride=" << c.g_stride
      << (c.broadcast ? " broadcast" : "");
}

class SigmoidMulTest : public GpuTest, public ::testing::WithParamInterface<SigmoidMulCase> {};

TEST_P(SigmoidMulTest, MatchesTheReference) {
  const SigmoidMulCase& p = GetParam();
  std::mt19937 rng(17 + p.n + p.g_stride);
  const uint32_t y_stride = p.n + 3;
  auto g = random_columns(p.broadcast ? 1 : p.n, p.ncols, p.g_stride, -10.0f, 10.0f, rng);
  g[0] = -100.0f;  // sigmoid underflows to 0
  if (g.size() > 1 && !p.broadcast) g[1] = 100.0f;
  const auto y0 = random_columns(p.n, p.ncols, y_stride, -3.0f, 3.0f, rng);
  Buffer gb = upload_floats(g, "g"), yb = upload_floats(y0, "y");
  const Op op = sigmoid_mul_op({TensorView::whole(gb), TensorView::whole(yb), p.n, p.ncols,
                                p.g_stride, y_stride, p.broadcast});
  run_ops(std::span(&op, 1));
  const auto gpu = download_floats(yb, y0.size());

  std::vector<float> expected = y0;
  ref::sigmoid_mul(g, p.g_stride, p.broadcast, expected, y_stride, p.n, p.ncols);
  expect_padding_kept(gpu, y0, p.n, y_stride, "y");
  double worst = 0;
  for (uint32_t c = 0; c < p.ncols; ++c) {
    for (uint32_t i = 0; i < p.n; ++i) {
      const size_t at = size_t(c) * y_stride + i;
      ASSERT_NEAR(gpu[at], expected[at], 2e-6 * std::fabs(expected[at]) + 1e-30)
          << "column " << c << " element " << i;
      worst = std::max(worst, std::fabs(gpu[at] - expected[at]) / (std::fabs(expected[at]) + 1e-30));
    }
  }
  record_worst("worst_rel_error", worst);
}

INSTANTIATE_TEST_SUITE_P(
    Gates, SigmoidMulTest,
    ::testing::Values(SigmoidMulCase{7, 2, 9, false}, SigmoidMulCase{1000, 3, 1003, false},
                      SigmoidMulCase{4096, 2, 4096, false}, SigmoidMulCase{300, 4, 1, true},
                      SigmoidMulCase{2048, 3, 7, true}));

}  // namespace
}  // namespace pb::test
