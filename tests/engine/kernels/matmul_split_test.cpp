// The coopmat matmul with K split across workgroups (matmul_split.h, MATMUL_SPLIT_K): the rule
// that picks the splits; the reduction's dispatch on any device (exact: it adds in split order,
// as the CPU does here); and the split kernels with their reduction against the CPU reference
// where the device has cooperative matrices (not on lavapipe, where the engine must then hold no
// scratch for them). Tolerance as the unsplit coopmat kernel's (matmul_test.cpp): 1e-3 m + 1e-6,
// m = sum_k |w_k x_k|; the split only changes the order of float32 additions.
#include <gtest/gtest.h>

#include <random>

#include "engine/ops/add_op.h"
#include "engine/ops/glu_op.h"
#include "engine/ops/matmul_op.h"
#include "engine/ops/matmul_split.h"
#include "engine/ops/sigmoid_mul_op.h"
#include "engine/reference/matmul_ref.h"
#include "harness/errors.h"
#include "kernels/registry.h"
#include "tests/support/gpu_test.h"
#include "tests/support/matmul_inputs.h"

namespace pb::test {
namespace {

// Every split the rule gives keeps the grid within kMatmulSplitGrid workgroups, each split at
// least kMatmulMinSplitSteps steps and the last one non-empty; and it is the largest such power
// of two.
TEST(MatmulSplits, KeepEverySplitNonEmptyAndTheGridBounded) {
  const auto valid = [](uint32_t tiles, uint32_t steps, uint32_t s) {
    const uint32_t share = (steps + s - 1) / s;
    return tiles * s <= kMatmulSplitGrid && steps >= s * kMatmulMinSplitSteps && (s - 1) * share < steps;
  };
  int split_cases = 0;
  for (uint32_t tiles = 1; tiles <= kMatmulSplitBelowTiles + 8; ++tiles) {
    for (uint32_t steps = 1; steps <= 300; ++steps) {
      const uint32_t s = matmul_splits(tiles, steps);
      ASSERT_TRUE(s == 1 || s == 2 || s == 4 || s == 8) << tiles << " tiles, " << steps << " steps";
      if (tiles >= kMatmulSplitBelowTiles) {
        ASSERT_EQ(s, 1u) << tiles << " tiles";
        continue;
      }
      if (s > 1) {
        ASSERT_TRUE(valid(tiles, steps, s)) << tiles << " tiles, " << steps << " steps, " << s << " splits";
        ++split_cases;
      }
      for (uint32_t more = s * 2; more <= kMatmulMaxSplits; more *= 2) {
        ASSERT_FALSE(valid(tiles, steps, more)) << tiles << " tiles, " << steps << " steps: " << more << " would do";
      }
    }
  }
  EXPECT_GT(split_cases, 1000);
  EXPECT_EQ(matmul_splits(16, 64), 8u);  // ssm_out 2048 x 4096 at 32 tokens: 16 tiles of 128 rows
  EXPECT_EQ(matmul_splits(16, 33), 4u);  // 8 would leave the last split empty (7 x 5 >= 33)
}

// The reduction alone, on slots of known values: 3 row tiles by 2 token tiles of a 64 x 32
// tiling, 4 splits, partial tiles at both edges, y at an offset, with and without the add.
class MatmulSplitReduce : public GpuTest {};

TEST_F(MatmulSplitReduce, AddsTheSlotsInSplitOrder) {
  const CoopmatTiling tiling{64, 32, 32, 32, 32, 2};
  const uint32_t splits = 4, rows = 150, tokens = 40, y_stride = 157, row_base = 5, y_offset = 8;
  const uint32_t tiles = 3 * 2;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> slots(size_t(tiles) * splits * tiling.bm * tiling.bn);
  for (auto& v : slots) v = uniform(rng);
  std::vector<float> y0(y_offset + size_t(tokens) * y_stride);
  for (auto& v : y0) v = uniform(rng);
  Buffer sums = upload_floats(slots, "slots");
  for (const bool accumulate : {false, true}) {
    Buffer yb = upload_floats(y0, "y");
    const MatmulPush push{rows, 256, tokens, 256, y_stride, row_base, 0, y_offset};
    const Op op = matmul_split_reduce_op(tiling, splits, TensorView::whole(sums), TensorView::whole(yb), push,
                                         accumulate);
    run_ops(std::span(&op, 1), BarrierPolicy::Ledger);
    const std::vector<float> got = download_floats(yb, y0.size());
    std::vector<float> expected = y0;
    for (uint32_t c = 0; c < tokens; ++c) {
      for (uint32_t r = 0; r < rows; ++r) {
        const uint32_t tile = (r / tiling.bm) * 2 + c / tiling.bn;
        const size_t at = size_t(tile) * splits * tiling.bm * tiling.bn + (c % tiling.bn) * tiling.bm + r % tiling.bm;
        float sum = 0.0f;
        for (uint32_t z = 0; z < splits; ++z) sum += slots[at + size_t(z) * tiling.bm * tiling.bn];
        float& out = expected[y_offset + size_t(c) * y_stride + row_base + r];
        out = accumulate ? out + sum : sum;
      }
    }
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], expected[i]) << "float " << i << (accumulate ? " (+=)" : "");
  }
}

// The reductions with an epilogue give the bits of the plain reduction and the element-wise
// dispatches they replace, run here on the same slots: the gated unit after a stacked gate and
// up (SiLU and GELU; 2 x 160 rows, so up starts inside a row tile), and a sigmoid gate per token
// with the residual add (gates of both signs, y at an offset with a stride past its rows).
TEST_F(MatmulSplitReduce, EpiloguesGiveTheBitsOfTheDispatchesTheyReplace) {
  const CoopmatTiling tiling{64, 32, 32, 32, 32, 2};
  const uint32_t splits = 4, n = 160, tokens = 40, stride = 2 * n + 8;
  const uint32_t tiles = ceil_div(2 * n, tiling.bm) * ceil_div(tokens, tiling.bn);
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> uniform(-4.0f, 4.0f);
  std::vector<float> slots(size_t(tiles) * splits * tiling.bm * tiling.bn);
  for (auto& v : slots) v = uniform(rng);
  Buffer sums = upload_floats(slots, "slots");
  const std::vector<float> zeros(size_t(tokens) * stride + 16, 0.0f);
  const BindingLimits limits = BindingLimits::of(device().info());

  for (const GluActivation activation : {GluActivation::Silu, GluActivation::GeluTanh}) {
    const std::vector<float> unwritten(zeros.size(), 12345.0f);
    Buffer gate_up = upload_floats(zeros, "gate and up"), fused_out = upload_floats(unwritten, "fused out"),
           plain_out = upload_floats(unwritten, "plain out");
    const TensorView gu = TensorView::whole(gate_up);
    const SplitSlots stack{tiling, splits, TensorView::whole(sums), 2 * n, tokens};
    const auto glu_into = [&](const Buffer& out) {
      return GluProblem{gu, gu.slice(n * 4, gu.bytes - n * 4), TensorView::whole(out).slice(64, out.size() - 64), n,
                        tokens, stride, stride, stride, activation};
    };
    const MatmulPush push{2 * n, 256, tokens, 256, stride, 0, 0, 0};
    const Op plain[] = {matmul_split_reduce_op(tiling, splits, TensorView::whole(sums), gu, push, false),
                        glu_op(glu_into(plain_out))};
    run_ops(plain, BarrierPolicy::Ledger);
    const Op fused = matmul_split_reduce_glu_op(stack, glu_into(fused_out), limits);
    run_ops(std::span(&fused, 1), BarrierPolicy::Ledger);
    const std::vector<float> want = download_floats(plain_out, zeros.size());
    const std::vector<float> got = download_floats(fused_out, zeros.size());
    int written = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i], want[i]) << "float " << i << ", activation " << int(activation);
      written += got[i] != unwritten[i];
    }
    EXPECT_EQ(written, int(n * tokens));  // every element, and nothing outside them
  }

  std::vector<float> gates(size_t(tokens) * 3), y0(zeros.size());
  for (auto& v : gates) v = uniform(rng);
  for (auto& v : y0) v = uniform(rng);
  Buffer gate = upload_floats(gates, "gates"), tmp = upload_floats(zeros, "ungated");
  Buffer fused_y = upload_floats(y0, "fused y"), plain_y = upload_floats(y0, "plain y");
  const SplitSlots down{tiling, splits, TensorView::whole(sums), n, tokens};
  const auto y_of = [&](const Buffer& y) { return TensorView::whole(y).slice(32, y.size() - 32); };
  const SigmoidMulProblem gated{TensorView::whole(gate), TensorView::whole(tmp), n, tokens, 3, stride, true};
  const MatmulPush push{n, 256, tokens, 256, stride, 0, 0, 0};
  const Op plain[] = {matmul_split_reduce_op(tiling, splits, TensorView::whole(sums), TensorView::whole(tmp), push,
                                             false),
                      sigmoid_mul_op(gated),
                      add_in_place_op(AddInPlaceProblem{y_of(plain_y), TensorView::whole(tmp), n, tokens, stride,
                                                        stride})};
  run_ops(plain, BarrierPolicy::Ledger);
  const Op fused = matmul_split_reduce_gated_op(down, TensorView::whole(gate), 3, y_of(fused_y), stride, limits);
  run_ops(std::span(&fused, 1), BarrierPolicy::Ledger);
  const std::vector<float> want = download_floats(plain_y, y0.size());
  const std::vector<float> got = download_floats(fused_y, y0.size());
  int changed = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i], want[i]) << "float " << i;
    changed += got[i] != y0[i];
  }
  EXPECT_GT(changed, int(n * tokens * 9 / 10));  // the gated sums were added
}

// The epilogues refuse a split op of the wrong shape, naming what they need.
TEST(MatmulSplitReduceEpilogues, RefuseMisfitShapes) {
  const CoopmatTiling tiling{64, 32, 32, 32, 32, 2};
  const SplitSlots slots{tiling, 2, TensorView{}, 300, 8};
  GluProblem glu;
  glu.n = 100;  // the stack has 300 rows: not gate and up of 100
  glu.ncols = 8;
  glu.out_stride = 100;
  EXPECT_THROW(matmul_split_reduce_glu_op(slots, glu, BindingLimits{}), UsageError);
  EXPECT_THROW(matmul_split_reduce_gated_op(slots, TensorView{}, 1, TensorView{}, 200, BindingLimits{}),
               UsageError);  // y's stride is shorter than the 300 rows
}

struct SplitCase {
  WeightFormat format;
  uint32_t rows, cols, tokens;
  bool accumulate;
};

void PrintTo(const SplitCase& c, std::ostream* os) {
  *os << format_name(c.format) << " " << c.rows << "x" << c.cols << " tokens=" << c.tokens
      << (c.accumulate ? " accumulate" : "");
}

class MatmulSplitTest : public GpuTest, public ::testing::WithParamInterface<SplitCase> {};

// Runs the split op and its reduction twice on one scratch: both runs match the reference and
// agree bit for bit (the reduction adds the splits in a fixed order), and no y element outside
// the problem is written.
TEST_P(MatmulSplitTest, MatchesTheReferenceAndRepeatsExactly) {
  const SplitCase& p = GetParam();
  const MatmulChoice choice = choose_matmul(device().info(), p.format, true, p.tokens);  // as the engine
  const uint64_t scratch_bytes = matmul_split_scratch_bytes(device().info());
  if (!choice.coopmat) {
    EXPECT_EQ(scratch_bytes, 0u) << "a device on the scalar matmul holds no split scratch";
    return;
  }
  ASSERT_GT(scratch_bytes, 0u);
  const MatmulInputs in = random_matmul_inputs(p.format, p.rows, p.cols, p.tokens, 7 + p.rows + p.tokens);
  Buffer scratch(device(), scratch_bytes, MemoryUse::Device, "split scratch");
  std::vector<Op> ops;
  std::vector<float> runs[2];
  for (auto& got : runs) {
    got = run_on_gpu(in, p.format, p.rows, p.cols, p.tokens, p.accumulate, [&](const auto& problem) {
      ops = matmul_ops(problem, BindingLimits::of(device().info()), choice, TensorView::whole(scratch));
      return ops;
    });
  }
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].kernel->name, std::string(matmul_split_kernel_name(p.format)));
  EXPECT_GT(ops[0].groups[2], 1u);
  EXPECT_EQ(ops[1].kernel->name, std::string("matmul_split_reduce"));
  for (size_t i = 0; i < runs[0].size(); ++i) ASSERT_EQ(runs[1][i], runs[0][i]) << "float " << i;
  std::vector<float> expected = in.y;
  ref::matmul(p.format, in.weights, p.rows, p.cols, in.x, p.tokens, in.x_stride, expected, in.y_stride,
              p.accumulate);
  expect_matmul_close(in, p.rows, p.cols, p.tokens, runs[0], expected, 1e-3, 1e-6);
}

// Few tiles and enough K steps to split: 8 splits (Q4_K 2048 inputs, 32 steps of 64), 4 with an
// uneven share (Q4_K 1280: 20 steps), partial row and token tiles, the accumulate, each format;
// the quantized ones up to 32 tokens in the narrow tiles, Q8_0 at 33 in the default ones.
INSTANTIATE_TEST_SUITE_P(Formats, MatmulSplitTest,
                         ::testing::Values(SplitCase{WeightFormat::Q4_K, 300, 2048, 32, false},
                                           SplitCase{WeightFormat::Q4_K, 130, 1280, 20, true},
                                           SplitCase{WeightFormat::Q8_0, 96, 4096, 33, false},
                                           SplitCase{WeightFormat::Q6_K, 75, 2048, 16, true},
                                           SplitCase{WeightFormat::F16, 200, 1024, 7, false},
                                           SplitCase{WeightFormat::F32, 64, 1024, 1, true}));

}  // namespace
}  // namespace pb::test
