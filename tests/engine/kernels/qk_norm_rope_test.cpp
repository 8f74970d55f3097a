// Per-head q/k RMSNorm + rotary embedding against the float64 reference: both rope styles,
// full and partial rotary (Qwen3.5: 64 of 256), the norm on and off, Gemma's 1 + w, norm only,
// head sizes from 64 to 512 (and 96, not a power of two), GQA head counts, several columns of
// a fused qkv buffer with padding, positions up to 4096 and past 200000.
// Tolerance: 2e-5 absolute on outputs of magnitude up to ~5, at every position tested: the
// kernel carries the angle in float-float, so what remains is float sin/cos on [-pi, pi] and
// the float norm (measured worst ~2e-6 on lavapipe). A plain float angle would be off by
// ~2.4e-4 radians at position 4096 and ~0.016 at 262144.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/ops/qk_norm_rope_op.h"
#include "engine/reference/qk_norm_rope_ref.h"
#include "harness/errors.h"
#include "tests/engine/kernels/elementwise_fixture.h"

namespace pb::test {
namespace {

constexpr double kTolerance = 2e-5;
constexpr uint32_t kQHeads = 4, kKHeads = 2, kCols = 3;

struct RopeCase {
  RopeStyle style;
  bool qk_norm, add_one;
  uint32_t head_dim, rope_dims, pos0;
  float theta;
};

void PrintTo(const RopeCase& c, std::ostream* os) {
  *os << (c.style == RopeStyle::Neox ? "neox" : "normal") << (c.qk_norm ? " norm" : "")
      << (c.add_one ? " 1+w" : "") << " head_dim=" << c.head_dim << " rope_dims=" << c.rope_dims
      << " pos0=" << c.pos0 << " theta=" << c.theta;
}

class QkNormRopeTest : public GpuTest, public ::testing::WithParamInterface<RopeCase> {};

TEST_P(QkNormRopeTest, MatchesTheReference) {
  const RopeCase& p = GetParam();
  std::mt19937 rng(37 + p.head_dim + p.rope_dims + p.pos0);
  // Fused [kCols][q | k | v | pad]: q at float 0, k after the q heads.
  const uint32_t q_width = kQHeads * p.head_dim, k_width = kKHeads * p.head_dim;
  const uint32_t stride = q_width + 2 * k_width + 4;
  const auto qkv = random_columns(stride, kCols, stride, -2.0f, 2.0f, rng);
  const float w_range = p.add_one ? 0.5f : 1.5f;
  const auto q_norm = random_columns(p.head_dim, 1, p.head_dim, -w_range, w_range, rng);
  const auto k_norm = random_columns(p.head_dim, 1, p.head_dim, -w_range, w_range, rng);
  Buffer xb = upload_floats(qkv, "qkv");
  Buffer qn = upload_floats(q_norm, "q_norm"), kn = upload_floats(k_norm, "k_norm");
  const TensorView x = TensorView::whole(xb);
  const float eps = 1e-6f;
  QkNormRopeProblem problem{x, x.slice(uint64_t(q_width) * 4, xb.size() - uint64_t(q_width) * 4),
                            TensorView{}, TensorView{}, kQHeads, kKHeads, p.head_dim, p.rope_dims,
                            p.pos0, kCols, stride, stride, p.theta, eps, p.style, p.qk_norm,
                            p.add_one};
  if (p.qk_norm) {
    problem.q_norm = TensorView::whole(qn);
    problem.k_norm = TensorView::whole(kn);
  }
  const Op op = qk_norm_rope_op(problem);
  run_ops(std::span(&op, 1));
  const auto gpu = download_floats(xb, qkv.size());

  std::vector<float> expected = qkv;
  ref::QkNormRopeParams r{kQHeads, kKHeads, p.head_dim, p.rope_dims, p.pos0, kCols, stride, stride,
                          double(p.theta), eps, p.style == RopeStyle::Neox, p.qk_norm, p.add_one};
  ref::qk_norm_rope(expected, std::span(expected).subspan(q_width), q_norm, k_norm, r);
  double worst = 0;
  for (size_t at = 0; at < gpu.size(); ++at) {
    if (at % stride >= q_width + k_width) {  // v and padding are never touched
      ASSERT_EQ(bits_of(gpu[at]), bits_of(qkv[at])) << "element " << at << " outside q and k";
      continue;
    }
    const double error = std::fabs(double(gpu[at]) - expected[at]);
    worst = std::max(worst, error);
    ASSERT_LE(error, kTolerance) << "column " << at / stride << " element " << at % stride
                                 << ": gpu " << gpu[at] << " reference " << expected[at];
  }
  record_worst("worst_abs_error", worst);
}

INSTANTIATE_TEST_SUITE_P(
    Variants, QkNormRopeTest,
    ::testing::Values(
        RopeCase{RopeStyle::Normal, false, false, 128, 128, 0, 500000.0f},     // Llama 3
        RopeCase{RopeStyle::Normal, false, false, 64, 32, 4093, 10000.0f},     // partial
        RopeCase{RopeStyle::Normal, true, false, 96, 96, 17, 10000.0f},
        RopeCase{RopeStyle::Neox, false, false, 128, 128, 4090, 10000.0f},
        RopeCase{RopeStyle::Neox, true, false, 128, 128, 100, 1000000.0f},     // Qwen3
        RopeCase{RopeStyle::Neox, true, false, 256, 64, 4093, 10000000.0f},    // Qwen3.5 partial
        RopeCase{RopeStyle::Neox, true, true, 256, 256, 4000, 10000.0f},       // Gemma sliding
        RopeCase{RopeStyle::Neox, true, true, 512, 512, 7, 1000000.0f},        // Gemma global
        RopeCase{RopeStyle::Neox, true, false, 64, 0, 3, 10000.0f},            // norm only
        RopeCase{RopeStyle::Neox, false, false, 64, 64, 200000, 10000.0f},     // long context
        RopeCase{RopeStyle::Normal, true, true, 128, 128, 262000, 1000000.0f}));

TEST(QkNormRopeOps, RejectsShapesTheKernelCannotServe) {
  Buffer x(device(), 4 * 4096, MemoryUse::Device, "x");
  const TensorView v = TensorView::whole(x);
  QkNormRopeProblem p{v, v, v, v, 2, 1, 128, 128, 0, 1, 512, 512};
  EXPECT_NO_THROW(qk_norm_rope_op(p));
  p.head_dim = 1024;  // more than 64 invocations x 4 pairs
  p.rope_dims = 64;
  EXPECT_THROW(qk_norm_rope_op(p), UsageError);
  p.head_dim = 128;
  p.rope_dims = 130;
  EXPECT_THROW(qk_norm_rope_op(p), UsageError);
  p.rope_dims = 0;  // neither norm nor rope
  EXPECT_THROW(qk_norm_rope_op(p), UsageError);
}

}  // namespace
}  // namespace pb::test
