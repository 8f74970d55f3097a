// Gated-activation kernel against the float64 reference: SiLU and tanh-GELU, sizes that are
// not multiples of the 256-invocation workgroup, several padded columns, gate and up as the two
// halves of one fused buffer, and gates far out in both tails (where a naive tanh or exp
// overflows). Tolerance: |gpu - ref| <= 2e-6 |ref| + 1e-6 |up| (float exp/tanh are good to a
// few ulps; the absolute term covers activations that cancel to ~0 near gate = 0 or -inf).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/ops/glu_op.h"
#include "engine/reference/glu_ref.h"
#include "tests/engine/kernels/elementwise_fixture.h"

namespace pb::test {
namespace {

struct GluCase {
  GluActivation activation;
  uint32_t n, ncols;
  bool fused;  // gate and up are the halves of one buffer
};

void PrintTo(const GluCase& c, std::ostream* os) {
  *os << (c.activation == GluActivation::Silu ? "silu" : "gelu_tanh") << " n=" << c.n
      << " ncols=" << c.ncols << (c.fused ? " fused" : "");
}

class GluTest : public GpuTest, public ::testing::WithParamInterface<GluCase> {};

TEST_P(GluTest, MatchesTheReference) {
  const GluCase& p = GetParam();
  std::mt19937 rng(11 + p.n);
  // Fused: one [ncols][2n + 4] buffer, gate at float 0 and up at float n of each column (n is
  // a multiple of 4 there, so the up view's offset stays 16-byte aligned).
  const uint32_t in_stride = p.fused ? 2 * p.n + 4 : p.n + 3;
  const uint32_t out_stride = p.n + 1;
  auto gate = random_columns(p.n, p.ncols, in_stride, -8.0f, 8.0f, rng);
  const float tails[] = {-100.0f, -30.0f, -12.0f, 12.0f, 30.0f, 100.0f};
  for (size_t t = 0; t < std::size(tails) && t < p.n; ++t) gate[t] = tails[t];
  std::vector<float> up = random_columns(p.n, p.ncols, in_stride, -2.0f, 2.0f, rng);
  if (p.fused) {  // the up half lives in gate's buffer
    for (uint32_t c = 0; c < p.ncols; ++c) {
      for (uint32_t i = 0; i < p.n; ++i) gate[size_t(c) * in_stride + p.n + i] = up[size_t(c) * in_stride + i];
    }
  }
  const std::vector<float> out0(size_t(p.ncols) * out_stride, kPadding);
  Buffer gb = upload_floats(gate, "gate"), ub = upload_floats(up, "up"), ob = upload_floats(out0, "out");
  const TensorView gate_view = TensorView::whole(gb);
  const TensorView up_view = p.fused ? gate_view.slice(uint64_t(p.n) * 4, gb.size() - uint64_t(p.n) * 4)
                                     : TensorView::whole(ub);
  const Op op = glu_op({gate_view, up_view, TensorView::whole(ob), p.n, p.ncols, in_stride,
                        in_stride, out_stride, p.activation});
  run_ops(std::span(&op, 1));
  const auto gpu = download_floats(ob, out0.size());

  std::vector<float> expected = out0;
  const std::span<const float> up_host = p.fused ? std::span<const float>(gate).subspan(p.n)
                                                 : std::span<const float>(up);
  ref::glu(p.activation == GluActivation::GeluTanh, gate, in_stride, up_host, in_stride, expected,
           out_stride, p.n, p.ncols);
  expect_padding_kept(gpu, out0, p.n, out_stride, "out");
  double worst = 0;  // as a fraction of the tolerance
  for (uint32_t c = 0; c < p.ncols; ++c) {
    for (uint32_t i = 0; i < p.n; ++i) {
      const size_t at = size_t(c) * out_stride + i;
      const double u = up_host[size_t(c) * in_stride + i];
      const double allowed = 2e-6 * std::fabs(expected[at]) + 1e-6 * std::fabs(u);
      ASSERT_NEAR(gpu[at], expected[at], allowed)
          << "column " << c << " element " << i << " gate " << gate[size_t(c) * in_stride + i];
      if (allowed > 0) worst = std::max(worst, std::fabs(gpu[at] - expected[at]) / allowed);
    }
  }
  record_worst("worst_fraction_of_tolerance", worst);
}

INSTANTIATE_TEST_SUITE_P(
    Activations, GluTest,
    ::testing::Values(GluCase{GluActivation::Silu, 7, 2, false},
                      GluCase{GluActivation::Silu, 1000, 3, false},
                      GluCase{GluActivation::Silu, 1024, 3, true},
                      GluCase{GluActivation::GeluTanh, 7, 2, false},
                      GluCase{GluActivation::GeluTanh, 2049, 3, false},
                      GluCase{GluActivation::GeluTanh, 1024, 3, true}));

}  // namespace
}  // namespace pb::test
