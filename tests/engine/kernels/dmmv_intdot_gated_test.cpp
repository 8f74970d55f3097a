// The projection that gates its output by a sigmoid and adds it into y in its epilogue
// (dmmv_intdot_<fmt>_gated: Qwen3.5's shared expert in decode, y += (W x) sigmoid(g), where
// the projection, sigmoid_mul and add_in_place took three dispatches): y against the integer
// reference's sums gated on the CPU, within the DMMV test's bound; and the builder refuses what
// the kernel cannot do.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/ops/dmmv_intdot_gated_op.h"
#include "engine/reference/dmmv_intdot_ref.h"
#include "harness/build_info.h"
#include "harness/errors.h"
#include "kernels/registry.h"
#include "tests/engine/kernels/intdot_fixture.h"
#include "tests/engine/kernels/quantized_x_fixture.h"

namespace pb::test {
namespace {

struct GatedCase {
  WeightFormat format;
  uint32_t rows;
  uint32_t cols;
  float gate;
};

void PrintTo(const GatedCase& c, std::ostream* os) {
  *os << format_name(c.format) << " " << c.rows << "x" << c.cols << " gate " << c.gate;
}

bool has_gated_path() { return build_info().has_intdot_shaders && device().info().caps.integer_dot_product; }

class DmmvIntdotGatedTest : public GpuTest, public ::testing::WithParamInterface<GatedCase> {
 protected:
  void SetUp() override {
    if (!has_gated_path()) GTEST_SKIP() << "no integer-dot path here (RefusesWhatItCannotDo covers the builder)";
  }
};

TEST_P(DmmvIntdotGatedTest, AddsTheProjectionScaledBySigmoidOfTheGate) {
  const GatedCase& p = GetParam();
  std::mt19937 rng(17 + p.rows + p.cols);
  const Matrix w = random_matrix(p.format, p.rows, p.cols, rng);
  const std::vector<float> x = random_columns(p.cols, 1, p.cols, -1.0f, 1.0f, rng);
  const std::vector<float> y_old = random_columns(p.rows, 1, p.rows, -2.0f, 2.0f, rng);
  Buffer wb = upload_weights(p.format, p.cols, w.bytes, "w");
  Buffer xb = upload_floats(x, "x");
  Buffer yb = upload_floats(y_old, "y");
  Buffer gb = upload_floats({p.gate, kPadding}, "gate");
  QuantizedBuffer qx(p.cols, 1);
  const ProjectionProblem problem{p.format, TensorView::whole(wb), TensorView::whole(xb), TensorView::whole(yb),
                                  p.rows, p.cols, 1, p.cols, p.rows, true};
  std::vector<Op> ops = quantize_x_ops(problem, qx.view, qx.limits);
  ops.push_back(dmmv_intdot_gated_op(problem, qx.view, TensorView::whole(gb), qx.limits));
  EXPECT_EQ(ops.back().kernel->name, dmmv_intdot_gated_kernel_name(p.format));
  run_ops(ops, BarrierPolicy::Ledger);
  const std::vector<float> y = download_floats(yb, p.rows);

  const ref::QuantizedXHost xq = ref::quantize_x(x, p.cols, 1, p.cols);
  std::vector<float> sums(p.rows, 0.0f);
  ref::dmmv_intdot(p.format, w.bytes, p.rows, p.cols, xq, sums, p.rows, false);
  const std::vector<float> xhat = dequantized_x(xq);
  const double sigmoid = 1.0 / (1.0 + std::exp(-double(p.gate)));
  for (uint32_t r = 0; r < p.rows; ++r) {
    const double expected = y_old[r] + sums[r] * sigmoid;
    ASSERT_NEAR(y[r], expected, 5e-7 * magnitude(w, p.cols, r, xhat.data()) + 1e-6 * (1 + std::fabs(expected)))
        << "row " << r;
  }
}

std::vector<GatedCase> cases() {
  return {
      {WeightFormat::Q4_K, 256, 256, -1.3f},  // tiny-hybrid's shared down: 256 rows of 256 inputs
      {WeightFormat::Q4_K, 96, 256, 2.5f},
      {WeightFormat::Q8_0, 64, 512, 0.0f},
      {WeightFormat::Q6_K, 48, 256, -0.4f},
  };
}

INSTANTIATE_TEST_SUITE_P(Formats, DmmvIntdotGatedTest, ::testing::ValuesIn(cases()));

TEST(DmmvIntdotGatedOps, RefusesWhatItCannotDo) {
  Buffer any(device(), 1 << 20, MemoryUse::Device, "any");
  const BindingLimits limits = BindingLimits::of(device().info());
  const TensorView all = TensorView::whole(any);
  const QuantizedX x = quantized_x_in(all.slice(1 << 19, 1 << 16), 256, 1, limits);
  const auto problem = [&](WeightFormat format, uint32_t ncols, bool accumulate) {
    return ProjectionProblem{format, all, all, all, 64, 256, ncols, 256, 64, accumulate};
  };
  EXPECT_EQ(dmmv_intdot_gated_kernel_name(WeightFormat::F16), nullptr);
  EXPECT_NE(dmmv_intdot_gated_refusal(problem(WeightFormat::F16, 1, true)), "");
  if (!has_gated_path()) {
    EXPECT_NE(dmmv_intdot_gated_refusal(problem(WeightFormat::Q4_K, 1, true)), "");
    EXPECT_THROW(dmmv_intdot_gated_op(problem(WeightFormat::Q4_K, 1, true), x, all, limits), UsageError);
    return;
  }
  EXPECT_EQ(dmmv_intdot_gated_refusal(problem(WeightFormat::Q4_K, 1, true)), "");
  EXPECT_NO_THROW(dmmv_intdot_gated_op(problem(WeightFormat::Q4_K, 1, true), x, all, limits));
  EXPECT_THROW(dmmv_intdot_gated_op(problem(WeightFormat::Q4_K, 2, true), x, all, limits), UsageError);   // two columns
  EXPECT_THROW(dmmv_intdot_gated_op(problem(WeightFormat::Q4_K, 1, false), x, all, limits), UsageError);  // writes y
  const QuantizedX deferred = deferred_norm_in(all.slice(1 << 19, 1 << 16), 256, 1e-5f, limits);
  EXPECT_THROW(dmmv_intdot_gated_op(problem(WeightFormat::Q4_K, 1, true), deferred, all, limits), UsageError);
}

}  // namespace
}  // namespace pb::test
