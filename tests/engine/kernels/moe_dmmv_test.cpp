// Expert DMMV against the CPU reference, for every weight format: gate/up (input column = the
// token) and down (input column = the assignment), decode (C = 1) and a 13-token prefill whose
// tokens share 6 of 8 experts, so an expert serves more assignments than NUM_COLS and is
// processed in several passes; rows that are not a multiple of the workgroup's rows; the
// spec and shared column choices; stacked weights split into expert slices by the binding
// range. The experts no token selected are filled with NaN blocks, so any read of their rows
// would turn the output NaN. Tolerance as the dense DMMV's: |gpu - ref| <= 2e-5 *
// sum_k |w_k x_k| + 1e-6.
#include <gtest/gtest.h>

#include "engine/ops/moe_cost.h"
#include "engine/ops/moe_dmmv_op.h"
#include "harness/errors.h"
#include "tests/engine/kernels/moe_projection_check.h"

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
  MoeDmmvTuning shape = {};  // threads and rows per workgroup (num_cols above)
};

void PrintTo(const MoeDmmvCase& c, std::ostream* os) {
  *os << format_name(c.format) << (c.input == MoeInput::Token ? " gate/up" : " down") << " E="
      << c.experts << " K=" << c.top_k << " C=" << c.ncols << " pool=" << c.pool << " " << c.rows
      << "x" << c.cols << " num_cols=" << c.num_cols << " " << c.mode.name();
  if (c.slice_experts) *os << " slices of " << c.slice_experts;
  *os << " threads " << c.shape.threads << " rows " << c.shape.rows;
}

class MoeDmmvTest : public GpuTest, public ::testing::WithParamInterface<MoeDmmvCase> {};

TEST_P(MoeDmmvTest, MatchesTheReference) {
  const MoeDmmvCase& p = GetParam();
  MoeDmmvTuning tuning = p.shape;
  tuning.num_cols = p.num_cols;
  const std::vector<Op> ops = check_moe_projection(
      {p.format, p.input, p.experts, p.top_k, p.ncols, p.pool, p.rows, p.cols, p.slice_experts},
      [&](const MoeDmmvProblem& problem, const MoeRouting& routing, const BindingLimits& limits) {
        return moe_dmmv_ops(problem, routing, p.mode, limits, tuning);
      },
      2e-5);
  if (p.slice_experts) {
    EXPECT_EQ(ops.size(), (p.experts + p.slice_experts - 1) / p.slice_experts);
  }
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
  // The shape moe_dmmv_tuning gives Q4_K decode on 32-wide subgroups (one subgroup of 2 rows),
  // and the other candidates' extremes.
  list.push_back({WeightFormat::Q4_K, MoeInput::Token, 16, 4, 1, 12, 21, 256, 0, spec, 0, {32, 2}});
  list.push_back({WeightFormat::Q4_K, MoeInput::Assignment, 16, 4, 1, 12, 21, 256, 0, spec, 0, {32, 2}});
  list.push_back({WeightFormat::Q6_K, MoeInput::Token, 8, 3, 13, 6, 40, 256, 4, spec, 0, {256, 8}});
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

TEST(MoeDmmvOps, Q4_KDecodeTakesOneSubgroupOfTwoRowsWhereSubgroupsAre32Wide) {
  DeviceInfo info = device().info();
  info.subgroup_size = 32;
  EXPECT_EQ(moe_dmmv_tuning(info, WeightFormat::Q4_K, 1).threads, 32u);
  EXPECT_EQ(moe_dmmv_tuning(info, WeightFormat::Q4_K, 1).rows, 2u);
  EXPECT_EQ(moe_dmmv_tuning(info, WeightFormat::Q4_K, 64).threads, MoeDmmvTuning{}.threads);
  EXPECT_EQ(moe_dmmv_tuning(info, WeightFormat::Q8_0, 1).threads, MoeDmmvTuning{}.threads);
  info.subgroup_size = 64;
  EXPECT_EQ(moe_dmmv_tuning(info, WeightFormat::Q4_K, 1).threads, MoeDmmvTuning{}.threads);
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
