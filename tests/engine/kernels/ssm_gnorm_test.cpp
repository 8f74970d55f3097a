// Gated RMSNorm (kernels/ssm_gnorm.comp) against the float64 reference: head sizes below, at
// and above the 128-invocation workgroup and not multiples of it, several heads and padded
// columns with distinct o, z and y strides, gates far out in both tails (where a naive exp
// overflows), and o of large magnitude. Tolerance: |gpu - ref| <= 1e-5 |ref| + 1e-30 (a float
// tree sum of squares, inversesqrt and exp: a few ulps each; measured worst ~1e-6).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/ops/ssm_gnorm_op.h"
#include "engine/reference/ssm_ref.h"
#include "harness/errors.h"
#include "tests/engine/kernels/elementwise_fixture.h"

namespace pb::test {
namespace {

struct GnormCase {
  uint32_t heads, d_v, ncols;
  float magnitude;  // o uniform in [-magnitude, magnitude]
};

void PrintTo(const GnormCase& c, std::ostream* os) {
  *os << "heads=" << c.heads << " d_v=" << c.d_v << " ncols=" << c.ncols << " |o|<=" << c.magnitude;
}

class SsmGnormTest : public GpuTest, public ::testing::WithParamInterface<GnormCase> {};

TEST_P(SsmGnormTest, MatchesTheReference) {
  const GnormCase& p = GetParam();
  std::mt19937 rng(13 + p.d_v + p.heads);
  const uint32_t width = p.heads * p.d_v;
  const uint32_t o_stride = width + 3, z_stride = width + 6, y_stride = width + 1;
  const auto o = random_columns(width, p.ncols, o_stride, -p.magnitude, p.magnitude, rng);
  auto z = random_columns(width, p.ncols, z_stride, -6.0f, 6.0f, rng);
  const float tails[] = {-200.0f, -90.0f, -30.0f, 30.0f, 90.0f, 200.0f};
  for (size_t t = 0; t < std::size(tails) && t < width; ++t) z[t] = tails[t];
  const auto w = random_columns(p.d_v, 1, p.d_v, -1.0f, 1.0f, rng);
  const std::vector<float> y0(size_t(p.ncols) * y_stride, kPadding);
  Buffer ob = upload_floats(o, "o"), zb = upload_floats(z, "z"), wb = upload_floats(w, "w"),
         yb = upload_floats(y0, "y");
  const float eps = 1e-6f;
  const Op op = ssm_gnorm_op({TensorView::whole(ob), TensorView::whole(zb), TensorView::whole(wb),
                              TensorView::whole(yb), p.heads, p.d_v, p.ncols, o_stride, z_stride,
                              y_stride, eps});
  run_ops(std::span(&op, 1));
  const auto gpu = download_floats(yb, y0.size());

  std::vector<float> expected = y0;
  ref::ssm_gnorm(o, o_stride, z, z_stride, w, p.heads, p.d_v, p.ncols, eps, expected, y_stride);
  expect_padding_kept(gpu, y0, width, y_stride, "y");
  double worst = 0;
  for (uint32_t c = 0; c < p.ncols; ++c) {
    for (uint32_t i = 0; i < width; ++i) {
      const size_t at = size_t(c) * y_stride + i;
      const double error = std::fabs(double(gpu[at]) - expected[at]);
      ASSERT_LE(error, 1e-5 * std::fabs(expected[at]) + 1e-30) << "column " << c << " element " << i;
      if (std::fabs(expected[at]) > 1e-30) worst = std::max(worst, error / std::fabs(expected[at]));
    }
  }
  record_worst("worst_rel_error", worst);
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, SsmGnormTest,
    ::testing::Values(GnormCase{4, 128, 3, 1.0f}, GnormCase{32, 128, 2, 1.0f},
                      GnormCase{3, 64, 5, 1.0f}, GnormCase{2, 256, 2, 1.0f},
                      GnormCase{5, 5, 4, 1.0f}, GnormCase{2, 300, 3, 1.0f},
                      GnormCase{4, 128, 2, 3000.0f}));

TEST(SsmGnormOp, RejectsAliasingAndSmallViews) {
  Buffer a(device(), 4 * 1024, MemoryUse::Device, "a");
  Buffer b(device(), 4 * 1024, MemoryUse::Device, "b");
  const TensorView av = TensorView::whole(a), bv = TensorView::whole(b);
  EXPECT_NO_THROW(ssm_gnorm_op({av, av, bv, bv.slice(1024, 2048), 2, 64, 2, 128, 128, 128}));
  EXPECT_THROW(ssm_gnorm_op({av, bv, bv, av, 2, 64, 2, 128, 128, 128}), UsageError);  // y is o
  EXPECT_THROW(ssm_gnorm_op({av, bv, av, bv, 2, 64, 2, 128, 128, 128}), UsageError);  // y is z
  EXPECT_THROW(ssm_gnorm_op({av, av, bv, bv, 2, 64, 16, 128, 128, 128}), UsageError);  // too small
  EXPECT_THROW(ssm_gnorm_op({av, av, bv, bv, 0, 64, 1, 128, 128, 128}), UsageError);
}

}  // namespace
}  // namespace pb::test
