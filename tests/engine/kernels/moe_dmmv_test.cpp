// Expert DMMV against the CPU reference, for every weight format: gate/up (input column = the
// token) and down (input column = the assignment), decode (C = 1) and a 13-token prefill whose
// tokens share 6 of 8 experts, so an expert serves more assignments than NUM_COLS and is
// processed in several passes; rows that are not a multiple of the workgroup's rows; the
// spec and shared column choices; stacked weights split into expert slices by the binding
// range. The experts no token selected are filled with NaN blocks, so any read of their rows
// would turn the output NaN. Tolerance as the dense DMMV's: |gpu - ref| <= 2e-5 *
// sum_k |w_k x_k| + 1e-6.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/ops/moe_cost.h"
#include "engine/ops/moe_dmmv_op.h"
#include "engine/reference/moe_ref.h"
#include "harness/errors.h"
#include "tests/engine/kernels/moe_fixture.h"

namespace pb::test {
namespace {

struct MoeDmmvCase {
  WeightFormat format;
  MoeInput input;
  uint32_t experts, top_k, ncols, pool;  // routes drawn from the first `pool` experts
  uint32_t rows, cols;
  uint32_t num_cols;        // MoeDmmvTuning::num_cols; 0 = from the mode
  NumColsMode mode;
  uint32_t slice_experts;   // > 0: a binding range of this many experts' weights
};

void PrintTo(const MoeDmmvCase& c, std::ostream* os) {
  *os << format_name(c.format) << (c.input == MoeInput::Token ? " gate/up" : " down") << " E="
      << c.experts << " K=" << c.top_k << " C=" << c.ncols << " pool=" << c.pool << " " << c.rows
      << "x" << c.cols << " num_cols=" << c.num_cols << " " << c.mode.name();
  if (c.slice_experts) *os << " slices of " << c.slice_experts;
}

class MoeDmmvTest : public GpuTest, public ::testing::WithParamInterface<MoeDmmvCase> {};

TEST_P(MoeDmmvTest, MatchesTheReference) {
  const MoeDmmvCase& p = GetParam();
  std::mt19937 rng(321 + p.ncols + p.rows + static_cast<uint32_t>(p.format));
  const MoeShape shape{p.experts, p.top_k, 0, 0, true};
  const uint32_t n = p.ncols * p.top_k;
  const std::vector<uint32_t> routes = random_routes(p.ncols, p.top_k, p.pool, rng);
  StackedExperts w = random_experts(p.format, p.experts, p.rows, p.cols, 0.05f, rng);
  const std::vector<float> dequantized = w.dequantized;  // the selected experts' values
  ASSERT_GE(poison_unselected(w.bytes, p.experts, routes), p.experts - p.pool);

  const bool per_assignment = p.input == MoeInput::Assignment;
  const uint32_t x_cols = per_assignment ? n : p.ncols;
  const uint32_t x_stride = p.cols + 4, y_stride = p.rows + 3;
  const auto x = random_columns(p.cols, x_cols, x_stride, -1.0f, 1.0f, rng);
  const std::vector<float> y0(size_t(n) * y_stride, kPadding);

  RoutingBuffers rb = make_routing(shape, p.ncols);
  upload_u32(rb.routing.route_e, routes);
  Buffer wb = upload_weights(p.format, p.cols, w.bytes, "experts"), xb = upload_floats(x, "x"), yb = upload_floats(y0, "y");
  BindingLimits limits = BindingLimits::of(device().info());
  const uint64_t expert_bytes = row_bytes(p.format, p.cols) * p.rows;
  if (p.slice_experts) limits.max_range = expert_bytes * p.slice_experts;
  const MoeDmmvProblem problem{p.format, TensorView::whole(wb), TensorView::whole(xb),
                               TensorView::whole(yb), shape, p.rows, p.cols, p.ncols, x_stride,
                               y_stride, p.input};
  MoeDmmvTuning tuning;
  tuning.num_cols = p.num_cols;
  std::vector<Op> ops{moe_group_op(shape, p.ncols, rb.routing)};
  for (Op& op : moe_dmmv_ops(problem, rb.routing, p.mode, limits, tuning)) ops.push_back(op);
  if (p.slice_experts) {
    ASSERT_EQ(ops.size(), 1 + (p.experts + p.slice_experts - 1) / p.slice_experts);
  }
  run_ops(ops, BarrierPolicy::Ledger);
  const auto gpu = download_floats(yb, y0.size());

  std::vector<float> expected = y0;
  ref::moe_dmmv(p.format, w.bytes, p.rows, p.cols, routes, p.top_k, per_assignment, x, x_stride,
                expected, y_stride);
  expect_padding_kept(gpu, y0, p.rows, y_stride, "y");
  double worst = 0;
  for (uint32_t a = 0; a < n; ++a) {
    const float* xc = x.data() + size_t(per_assignment ? a : a / p.top_k) * x_stride;
    const float* we = dequantized.data() + size_t(routes[a]) * p.rows * p.cols;
    for (uint32_t r = 0; r < p.rows; ++r) {
      double magnitude = 0;
      for (uint32_t k = 0; k < p.cols; ++k) {
        magnitude += std::fabs(double(we[size_t(r) * p.cols + k]) * xc[k]);
      }
      const size_t at = size_t(a) * y_stride + r;
      ASSERT_TRUE(std::isfinite(gpu[at])) << "assignment " << a << " row " << r
                                          << ": a poisoned expert was read";
      ASSERT_NEAR(gpu[at], expected[at], 2e-5 * magnitude + 1e-6) << "assignment " << a << " row " << r;
      worst = std::max(worst, std::fabs(double(gpu[at]) - expected[at]) / (magnitude + 1e-6));
    }
  }
  record_worst("worst_error_per_magnitude", worst);
}

std::vector<MoeDmmvCase> cases() {
  const NumColsMode spec{false, 64}, shared32{true, 32};
  std::vector<MoeDmmvCase> list;
  for (WeightFormat f : kAllWeightFormats) {
    // Q6_K experts are whole groups of 8 rows (engine/quant/device_layout.h).
    const uint32_t odd = f == WeightFormat::Q6_K ? 40 : 37, small = f == WeightFormat::Q6_K ? 24 : 21;
    list.push_back({f, MoeInput::Token, 8, 3, 13, 6, odd, 256, 2, spec, 0});       // passes of 2
    list.push_back({f, MoeInput::Assignment, 8, 3, 13, 6, odd, 256, 4, spec, 0});  // passes of 4
    list.push_back({f, MoeInput::Token, 16, 4, 1, 12, small, 256, 0, spec, 0});    // decode
  }
  // Input lengths that are not a multiple of 256 where the block allows it.
  for (WeightFormat f : {WeightFormat::F32, WeightFormat::F16, WeightFormat::Q8_0}) {
    list.push_back({f, MoeInput::Assignment, 8, 2, 6, 5, 19, f == WeightFormat::Q8_0 ? 256u : 96u, 2, spec, 0});
  }
  list.push_back({WeightFormat::Q4_K, MoeInput::Token, 8, 3, 13, 6, 37, 256, 0, spec, 0});      // 8
  list.push_back({WeightFormat::Q4_K, MoeInput::Assignment, 8, 3, 13, 6, 37, 256, 0, shared32, 0});
  list.push_back({WeightFormat::Q8_0, MoeInput::Token, 16, 2, 6, 14, 40, 256, 2, spec, 3});
  list.push_back({WeightFormat::Q6_K, MoeInput::Assignment, 16, 2, 6, 14, 40, 256, 2, spec, 5});
  return list;
}

INSTANTIATE_TEST_SUITE_P(AllFormats, MoeDmmvTest, ::testing::ValuesIn(cases()));

TEST(MoeDmmvOps, Q6_KExpertsOfPartialRowGroupsAreRefused) {
  const MoeShape shape{8, 2};
  Buffer w(device(), row_bytes(WeightFormat::Q6_K, 256) * 37 * 8, MemoryUse::Device, "w");
  Buffer x(device(), 4 * 256 * 4, MemoryUse::Device, "x");
  Buffer y(device(), 4 * 37 * 8, MemoryUse::Device, "y");
  RoutingBuffers rb = make_routing(shape, 4);
  const MoeDmmvProblem problem{WeightFormat::Q6_K, TensorView::whole(w), TensorView::whole(x), TensorView::whole(y),
                               shape, 37, 256, 4, 256, 37, MoeInput::Token};
  try {
    moe_dmmv_ops(problem, rb.routing, NumColsMode{false, 64}, BindingLimits::of(device().info()), MoeDmmvTuning{});
    ADD_FAILURE() << "Q6_K experts of 37 rows were accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of 8 rows"), std::string::npos) << e.what();
  }
}

TEST(MoeDmmvOps, ColumnChoiceFollowsTheMode) {
  EXPECT_EQ(moe_num_cols(NumColsMode{false, 64}, 1), 1u);
  EXPECT_EQ(moe_num_cols(NumColsMode{false, 64}, 3), 4u);
  EXPECT_EQ(moe_num_cols(NumColsMode{false, 64}, 64), 8u);
  EXPECT_EQ(moe_num_cols(NumColsMode{true, 32}, 1), 32u);
}

TEST(MoeDmmvCost, CountsTheSelectedExpertsOnly) {
  const MoeDmmvCost c = moe_dmmv_cost(WeightFormat::Q4_K, 512, 2048, 8, 8, 1);
  EXPECT_DOUBLE_EQ(c.weight_bytes, 8.0 * 512 * 8 * 144);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 512 * 2048 * 8);
  EXPECT_NEAR(expected_distinct_experts(128, 8, 1), 8.0, 1e-9);
  EXPECT_NEAR(expected_distinct_experts(128, 8, 64), 125.9, 0.1);
}

TEST(MoeDmmvOps, DispatchesOneRowOfWorkgroupsPerPossibleItem) {
  const MoeShape shape{128, 8, 0, 0, true};
  RoutingBuffers rb = make_routing(shape, 64);
  Buffer w(device(), row_bytes(WeightFormat::Q4_K, 256) * 37 * 128, MemoryUse::Device, "w");
  Buffer x(device(), 4 * 256 * 64, MemoryUse::Device, "x");
  Buffer y(device(), 4 * 40 * 64 * 8, MemoryUse::Device, "y");
  MoeDmmvProblem p{WeightFormat::Q4_K, TensorView::whole(w), TensorView::whole(x), TensorView::whole(y),
                   shape, 37, 256, 1, 256, 40, MoeInput::Token};
  const auto limits = BindingLimits::of(device().info());
  const auto decode = moe_dmmv_ops(p, rb.routing, NumColsMode{}, limits);
  ASSERT_EQ(decode.size(), 1u);
  EXPECT_EQ(decode[0].groups[0], 19u);  // ceil(37 / 2)
  EXPECT_EQ(decode[0].groups[1], 8u);   // K items at most
  p.ncols = 64;
  EXPECT_EQ(moe_dmmv_ops(p, rb.routing, NumColsMode{}, limits)[0].groups[1], 128u);  // E at most
}

}  // namespace
}  // namespace pb::test
