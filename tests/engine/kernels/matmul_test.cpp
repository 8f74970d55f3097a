// Tiled matmul kernels against the CPU reference and against the DMMV: every format at
// 1, 7, 64, 100 and 257 tokens (partial and whole column tiles), rows that are not a multiple
// of the tile, inputs that are not a multiple of 256 (or of the K step), the fused
// accumulate, and non-default tilings (for the coopmat kernel, every subgroup block shape and
// stage count).
//
// Tolerances, relative to m = sum_k |w_k x_k| of the output element:
//   scalar kernel: 2e-5 m + 1e-6, the DMMV's: float32 tiles and float32 accumulation in a
//     different order than the float64 reference (measured at most 3.2e-7 m on lavapipe,
//     2.8e-7 m on an H200).
//   matmul vs DMMV: 4e-5 m + 2e-6, the sum of both kernels' bounds (measured 2.1e-7 m).
//   coopmat kernel: 1e-3 m + 1e-6: weights and activations rounded to f16 (2^-11 relative
//     each, so at most about 9.8e-4 m in the worst case of all products rounding one way)
//     plus float32 accumulation. Measured: 1.7e-4 m at worst on an H200 (the 96-wide inputs,
//     whose m is smallest), 7e-5 m typical; the CPU model of that rounding in
//     matmul_ops_test.cpp gives 6.9e-5 m. These tests run only where the device has the
//     16x16x16 f16 shape and the build has the kernels (not on lavapipe).
#include <gtest/gtest.h>

#include <optional>

#include "engine/ops/dmmv_op.h"
#include "engine/ops/matmul_op.h"
#include "engine/reference/matmul_ref.h"
#include "kernels/registry.h"
#include "harness/errors.h"
#include "tests/support/gpu_test.h"
#include "tests/support/matmul_inputs.h"

namespace pb::test {
namespace {

struct MatmulCase {
  WeightFormat format;
  uint32_t rows, cols, tokens;
  bool accumulate;
  ScalarTiling tiling;
  std::optional<CoopmatTiling> coop = std::nullopt;  // coopmat cases: the device's default if unset
};

void PrintTo(const MatmulCase& c, std::ostream* os) {
  *os << format_name(c.format) << " " << c.rows << "x" << c.cols << " tokens=" << c.tokens
      << (c.accumulate ? " accumulate" : "") << " tiles " << c.tiling.bm << "x" << c.tiling.bn << "x"
      << c.tiling.bk << "/" << c.tiling.tm << "x" << c.tiling.tn;
  if (c.coop) {
    *os << " coop " << c.coop->bm << "x" << c.coop->bn << "x" << c.coop->bk << " blocks " << c.coop->wm << "x"
        << c.coop->wn << " stages " << c.coop->stages;
  }
}

class MatmulTest : public GpuTest, public ::testing::WithParamInterface<MatmulCase> {};

TEST_P(MatmulTest, MatchesTheReference) {
  const MatmulCase& p = GetParam();
  const MatmulInputs in = random_matmul_inputs(p.format, p.rows, p.cols, p.tokens, 99 + p.rows + p.tokens);
  MatmulChoice choice;
  choice.scalar = p.tiling;
  const auto gpu = run_on_gpu(in, p.format, p.rows, p.cols, p.tokens, p.accumulate, [&](const auto& problem) {
    return matmul_ops(problem, BindingLimits::of(device().info()), choice);
  });
  std::vector<float> expected = in.y;
  ref::matmul(p.format, in.weights, p.rows, p.cols, in.x, p.tokens, in.x_stride, expected, in.y_stride,
              p.accumulate);
  expect_matmul_close(in, p.rows, p.cols, p.tokens, gpu, expected, 2e-5, 1e-6);
}

std::vector<MatmulCase> cases() {
  std::vector<MatmulCase> list;
  const ScalarTiling standard{};
  const ScalarTiling small{32, 32, 64, 4, 2};  // K step 64: a partial K tile at cols 96
  for (WeightFormat f : kAllWeightFormats) {
    for (uint32_t n : {1u, 7u, 64u, 100u, 257u}) list.push_back({f, 96, 512, n, false, standard});
    list.push_back({f, 200, 512, 70, true, standard});  // one whole and one partial row tile
    list.push_back({f, 75, 256, 33, true, small});
  }
  // Widths not a multiple of 256 (not Q8_0: its device layout needs them, device_layout.h).
  for (WeightFormat f : {WeightFormat::F32, WeightFormat::F16}) {
    list.push_back({f, 96, 96, 100, false, standard});
    list.push_back({f, 96, 96, 7, true, small});
    list.push_back({f, 50, 40, 9, false, standard});  // K step 32 over cols 40
  }
  return list;
}

INSTANTIATE_TEST_SUITE_P(AllFormats, MatmulTest, ::testing::ValuesIn(cases()));

class MatmulVsDmmvTest : public GpuTest, public ::testing::WithParamInterface<WeightFormat> {};

TEST_P(MatmulVsDmmvTest, AgreeOnTheSameInputs) {
  const WeightFormat f = GetParam();
  const uint32_t rows = 96, cols = 512, tokens = 37;
  const MatmulInputs in = random_matmul_inputs(f, rows, cols, tokens, 7);
  const BindingLimits limits = BindingLimits::of(device().info());
  const auto mm = run_on_gpu(in, f, rows, cols, tokens, true, [&](const auto& problem) {
    return matmul_ops(problem, limits, MatmulChoice{});
  });
  const auto dmmv = run_on_gpu(in, f, rows, cols, tokens, true, [&](const auto& problem) {
    return dmmv_ops(problem, NumColsMode{true, 32}, limits);
  });
  expect_matmul_close(in, rows, cols, tokens, mm, dmmv, 4e-5, 2e-6);
}

INSTANTIATE_TEST_SUITE_P(AllFormats, MatmulVsDmmvTest, ::testing::ValuesIn(kAllWeightFormats),
                         [](const auto& info) { return std::string(format_name(info.param)); });

// The cooperative-matrix kernels: against the reference where the device and the build have
// them; elsewhere the engine must not choose them, and asking for an uncompiled one is an error
// (never a silent fallback to the scalar kernel).
class MatmulCoopmatTest : public GpuTest, public ::testing::WithParamInterface<MatmulCase> {};

TEST_P(MatmulCoopmatTest, MatchesTheReferenceWhereAvailable) {
  const MatmulCase& p = GetParam();
  MatmulChoice choice = choose_matmul(device().info(), p.format, true, p.tokens);  // as the engine chooses
  const bool compiled = find_kernel(matmul_kernel_name(p.format, true)) != nullptr;
  const bool available = compiled && has_coopmat_f16_16x16x16(device().info());
  ASSERT_EQ(choice.coopmat, available);
  if (p.coop) {
    // The tilings below fit in 48 KiB of shared memory and 512 invocations, which every
    // device with the 16x16x16 shape offers.
    if (available) {
      ASSERT_TRUE(coopmat_tiling_fits(device().info(), *p.coop));
    }
    choice.coop = *p.coop;
  }
  const MatmulInputs in = random_matmul_inputs(p.format, p.rows, p.cols, p.tokens, 5 + p.tokens);
  if (!available) {
    if (!compiled) {
      MatmulChoice forced = choice;
      forced.coopmat = true;
      EXPECT_THROW(run_on_gpu(in, p.format, p.rows, p.cols, p.tokens, p.accumulate,
                              [&](const auto& problem) {
                                return matmul_ops(problem, BindingLimits::of(device().info()), forced);
                              }),
                   UsageError);
    }
    return;
  }
  const auto gpu = run_on_gpu(in, p.format, p.rows, p.cols, p.tokens, p.accumulate, [&](const auto& problem) {
    return matmul_ops(problem, BindingLimits::of(device().info()), choice);
  });
  std::vector<float> expected = in.y;
  ref::matmul(p.format, in.weights, p.rows, p.cols, in.x, p.tokens, in.x_stride, expected, in.y_stride,
              p.accumulate);
  expect_matmul_close(in, p.rows, p.cols, p.tokens, gpu, expected, 1e-3, 1e-6);
}

std::vector<MatmulCase> coopmat_cases() {
  std::vector<MatmulCase> list;
  for (WeightFormat f : kAllWeightFormats) {
    for (uint32_t n : {1u, 7u, 64u, 100u, 257u}) list.push_back({f, 96, 512, n, false, {}});
    list.push_back({f, 200, 512, 70, true, {}});
  }
  for (WeightFormat f : {WeightFormat::F32, WeightFormat::F16}) {
    list.push_back({f, 96, 96, 100, true, {}});  // the default K step of 64 over cols 96: a partial step
  }
  // Q8_0 (rows of a multiple of 256 on the device): rows not a multiple of the tile, the binding
  // ending on the last row's scales.
  list.push_back({WeightFormat::Q8_0, 75, 256, 20, false, {}});
  // Q6_K blocks are 210 bytes: with one per row, every other row's block is only 2-byte aligned.
  list.push_back({WeightFormat::Q6_K, 75, 256, 20, true, {}});
  // Every subgroup block shape, both stage counts and K steps 16 to 64 (a partial K step at
  // cols 96 for bk 64), over whole 16 x 16 tiles written straight to y and edge tiles
  // written through the staging tile, with and without the accumulate.
  const CoopmatTiling tilings[] = {{128, 128, 32, 32, 32, 1}, {128, 128, 32, 64, 32, 2}, {128, 128, 32, 32, 64, 2},
                                   {128, 128, 16, 64, 64, 2}, {64, 64, 64, 32, 32, 2},   {128, 128, 64, 64, 64, 1},
                                   kCoopmatTilingNarrow};
  for (const CoopmatTiling& t : tilings) {
    for (WeightFormat f : {WeightFormat::F16, WeightFormat::Q4_K}) {
      if (t.bk % coopmat_weight_group(f) != 0) continue;  // rejected: RejectsTilingsAndShapes...
      list.push_back({f, 272, 512, 160, false, {}, t});
      list.push_back({f, 200, 256, 45, true, {}, t});
    }
    if (t.bk % coopmat_weight_group(WeightFormat::Q8_0) == 0) list.push_back({WeightFormat::Q8_0, 96, 256, 48, true, {}, t});
    list.push_back({WeightFormat::F16, 96, 96, 48, true, {}, t});  // the partial K step
  }
  return list;
}

INSTANTIATE_TEST_SUITE_P(AllFormats, MatmulCoopmatTest, ::testing::ValuesIn(coopmat_cases()));

}  // namespace
}  // namespace pb::test
