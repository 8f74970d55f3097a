// The experts' tiled matmul against the CPU reference (moe_projection_check.h): every format it
// has kernels for, gate/up (input column = the token) and down (input column = the assignment),
// 13 tokens sharing 6 of 8 experts, 70 tokens sharing 3 (so an expert's assignments fill more
// than one 32-token tile), rows that are not a multiple of the row tile, 96-wide inputs where
// the format allows, and weights split into expert slices by the binding range. Unselected
// experts are NaN blocks: a kernel that reads one fails.
//
// Tolerances as the dense matmul's (matmul_test.cpp): the scalar kernel 2e-5 m + 1e-6 (float32
// tiles), the cooperative-matrix kernel 1e-3 m + 1e-6 (weights and activations rounded to f16),
// m = sum_k |w_k x_k|. The cooperative-matrix cases run where the device has the 16x16x16 f16
// shape (not on lavapipe); elsewhere the engine must not choose them.
#include <gtest/gtest.h>

#include "engine/ops/moe_matmul_op.h"
#include "harness/errors.h"
#include "kernels/registry.h"
#include "tests/engine/kernels/moe_projection_check.h"

namespace pb::test {
namespace {

struct MoeMatmulCase {
  MoeProjectionShape shape;
  bool coopmat;
  std::optional<ScalarTiling> scalar = std::nullopt;  // the default tiles where unset
};

void PrintTo(const MoeMatmulCase& c, std::ostream* os) {
  const MoeProjectionShape& p = c.shape;
  *os << format_name(p.format) << (p.input == MoeInput::Token ? " gate/up" : " down") << " E=" << p.experts
      << " K=" << p.top_k << " C=" << p.ncols << " pool=" << p.pool << " " << p.rows << "x" << p.cols
      << (c.coopmat ? " coopmat" : " scalar");
  if (p.slice_experts) *os << " slices of " << p.slice_experts;
  if (c.scalar) *os << " tiles " << c.scalar->bm << "x" << c.scalar->bn;
}

class MoeMatmulTest : public GpuTest, public ::testing::WithParamInterface<MoeMatmulCase> {};

TEST_P(MoeMatmulTest, MatchesTheReference) {
  const MoeMatmulCase& c = GetParam();
  MatmulChoice choice = choose_moe_matmul(device().info(), c.shape.format);
  const bool available = has_coopmat_f16_16x16x16(device().info()) &&
                         find_kernel(moe_matmul_kernel_name(c.shape.format, true)) != nullptr;
  if (c.coopmat) {
    ASSERT_EQ(choice.coopmat, available);  // chosen exactly where the device and build have it
    if (!available) return;
  } else {
    choice.coopmat = false;
    if (c.scalar) choice.scalar = *c.scalar;
  }
  const std::vector<Op> ops = check_moe_projection(
      c.shape,
      [&](const MoeDmmvProblem& problem, const MoeRouting& routing, const BindingLimits& limits) {
        return moe_matmul_ops(problem, routing, limits, choice);
      },
      c.coopmat ? 1e-3 : 2e-5);
  if (c.shape.slice_experts) {
    EXPECT_EQ(ops.size(), (c.shape.experts + c.shape.slice_experts - 1) / c.shape.slice_experts);
  }
}

std::vector<MoeMatmulCase> cases() {
  std::vector<MoeMatmulCase> list;
  for (const bool coopmat : {false, true}) {
    for (WeightFormat f : {WeightFormat::F16, WeightFormat::Q8_0, WeightFormat::Q4_K, WeightFormat::Q6_K}) {
      // Q6_K experts are whole groups of 8 rows (engine/quant/device_layout.h).
      const uint32_t odd = f == WeightFormat::Q6_K ? 40 : 37;
      list.push_back({{f, MoeInput::Token, 8, 3, 13, 6, odd, 256}, coopmat});
      list.push_back({{f, MoeInput::Assignment, 8, 3, 13, 6, odd, 256}, coopmat});
      list.push_back({{f, MoeInput::Token, 8, 2, 70, 3, 136, 256}, coopmat});  // 2 token tiles an expert
    }
    list.push_back({{WeightFormat::F16, MoeInput::Assignment, 8, 2, 6, 5, 19, 96}, coopmat});
    list.push_back({{WeightFormat::Q8_0, MoeInput::Token, 16, 2, 6, 14, 40, 256, 3}, coopmat});
    list.push_back({{WeightFormat::Q6_K, MoeInput::Assignment, 16, 2, 6, 14, 40, 256, 5}, coopmat});
  }
  list.push_back({{WeightFormat::Q4_K, MoeInput::Token, 8, 3, 13, 6, 37, 256}, false, ScalarTiling{64, 32, 16, 4, 4}});
  return list;
}

INSTANTIATE_TEST_SUITE_P(AllFormats, MoeMatmulTest, ::testing::ValuesIn(cases()));

TEST(MoeMatmulOps, F32ExpertsHaveNoMatmulAndSaySo) {
  const MoeShape shape{8, 2};
  Buffer w(device(), 256 * 4 * 32 * 8, MemoryUse::Device, "w");
  Buffer x(device(), 4 * 256 * 4, MemoryUse::Device, "x");
  Buffer y(device(), 4 * 32 * 8, MemoryUse::Device, "y");
  RoutingBuffers rb = make_routing(shape, 4);
  const MoeDmmvProblem problem{WeightFormat::F32, TensorView::whole(w), TensorView::whole(x), TensorView::whole(y),
                               shape, 32, 256, 4, 256, 32, MoeInput::Token};
  EXPECT_EQ(moe_matmul_kernel_name(WeightFormat::F32, false), nullptr);
  EXPECT_EQ(moe_matmul_kernel_name(WeightFormat::F32, true), nullptr);
  EXPECT_FALSE(choose_moe_matmul(device().info(), WeightFormat::F32).coopmat);
  try {
    moe_matmul_ops(problem, rb.routing, BindingLimits::of(device().info()),
                   choose_moe_matmul(device().info(), WeightFormat::F32));
    ADD_FAILURE() << "F32 experts were accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("moe_dmmv_ops"), std::string::npos) << e.what();
  }
}

TEST(MoeMatmulOps, DispatchesTokenTilesRowTilesAndOneLayerPerPossibleItem) {
  const MoeShape shape{128, 8, 0, 0, true};
  RoutingBuffers rb = make_routing(shape, 64);
  Buffer w(device(), row_bytes(WeightFormat::Q4_K, 256) * 200 * 128, MemoryUse::Device, "w");
  Buffer x(device(), 4 * 256 * 64, MemoryUse::Device, "x");
  Buffer y(device(), 4 * 200 * 64 * 8, MemoryUse::Device, "y");
  const MoeDmmvProblem p{WeightFormat::Q4_K, TensorView::whole(w), TensorView::whole(x), TensorView::whole(y),
                         shape, 200, 256, 64, 256, 200, MoeInput::Token};
  MatmulChoice choice = choose_moe_matmul(device().info(), WeightFormat::Q4_K);
  choice.coopmat = false;
  const auto ops = moe_matmul_ops(p, rb.routing, BindingLimits::of(device().info()), choice);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].groups[0], 64u / choice.scalar.bn);                        // an expert serves <= C tokens
  EXPECT_EQ(ops[0].groups[1], (200u + choice.scalar.bm - 1) / choice.scalar.bm);
  EXPECT_EQ(ops[0].groups[2], 128u);                                           // min(E, C*K) items
}

}  // namespace
}  // namespace pb::test
