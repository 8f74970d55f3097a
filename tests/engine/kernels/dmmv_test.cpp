// DMMV kernels against the CPU reference: every format, every spec NUM_COLS value and both
// shared builds, rows that are not a multiple of the workgroup's rows, the fused accumulate,
// and workgroup shapes other than the defaults (threads, rows, slots unrolled per step, the
// column loop unrolled or rolled). Tolerance: |gpu - ref| <= 2e-5 * sum_k |w_k x_k| + 1e-6 (float32 accumulation
// in a different order than the float64 reference).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "engine/ops/dmmv_op.h"
#include "engine/quant/quantize.h"
#include "engine/reference/dmmv_ref.h"
#include "harness/errors.h"
#include "tests/support/gpu_test.h"
#include "tests/support/random_matrix.h"

namespace pb::test {
namespace {

struct DmmvCase {
  WeightFormat format;
  NumColsMode mode;
  uint32_t rows, cols, ncols;
  bool accumulate;
  DmmvTuning tuning = {};  // zeros: the format's defaults
};

void PrintTo(const DmmvCase& c, std::ostream* os) {
  *os << format_name(c.format) << " " << c.mode.name() << " " << c.rows << "x" << c.cols
      << " ncols=" << c.ncols << (c.accumulate ? " accumulate" : "");
  if (c.tuning.threads != 0) {
    *os << " threads=" << c.tuning.threads << " rows=" << c.tuning.rows << " unroll=" << c.tuning.unroll;
  }
  if (c.tuning.columns != ColumnLoop::Default) *os << " columns=" << column_loop_name(c.tuning.columns);
}

class DmmvTest : public GpuTest, public ::testing::WithParamInterface<DmmvCase> {};

TEST_P(DmmvTest, MatchesTheReference) {
  const DmmvCase& p = GetParam();
  std::mt19937 rng(1234 + p.rows + p.ncols);
  const Matrix w = random_matrix(p.format, p.rows, p.cols, rng);
  const uint32_t x_stride = p.cols + 4;  // padded, so columns are not back to back
  const uint32_t y_stride = p.rows + 3;
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> x(size_t(x_stride) * p.ncols), y(size_t(y_stride) * p.ncols);
  for (auto& v : x) v = uniform(rng);
  for (auto& v : y) v = uniform(rng);

  Buffer wb = upload_weights(p.format, p.cols, w.bytes, "w");
  Buffer xb = upload_floats(x, "x");
  Buffer yb = upload_floats(y, "y");
  ProjectionProblem problem{p.format, TensorView::whole(wb), TensorView::whole(xb), TensorView::whole(yb),
                      p.rows, p.cols, p.ncols, x_stride, y_stride, p.accumulate};
  const auto ops = dmmv_ops(problem, p.mode, BindingLimits::of(device().info()), p.tuning);
  run_ops(ops, BarrierPolicy::Ledger);
  const auto gpu = download_floats(yb, y.size());

  std::vector<float> expected = y;
  ref::dmmv(p.format, w.bytes, p.rows, p.cols, x, p.ncols, x_stride, expected, y_stride,
            p.accumulate);
  for (uint32_t c = 0; c < p.ncols; ++c) {
    for (uint32_t r = 0; r < y_stride; ++r) {
      const size_t at = size_t(c) * y_stride + r;
      if (r >= p.rows) {  // padding between columns is never written
        ASSERT_EQ(gpu[at], y[at]) << "padding written at column " << c << " row " << r;
        continue;
      }
      double magnitude = 0;
      for (uint32_t k = 0; k < p.cols; ++k) {
        magnitude += std::fabs(double(w.dequantized[size_t(r) * p.cols + k]) * x[size_t(c) * x_stride + k]);
      }
      ASSERT_NEAR(gpu[at], expected[at], 2e-5 * magnitude + 1e-6) << "column " << c << " row " << r;
    }
  }
}

std::vector<DmmvCase> cases() {
  std::vector<DmmvCase> list;
  const NumColsMode spec{false, 64}, shared32{true, 32}, shared64{true, 64};
  for (WeightFormat f : kAllWeightFormats) {
    const uint32_t cols = 512;
    for (uint32_t n : kSpecNumCols) list.push_back({f, spec, 37, cols, n, false});
    list.push_back({f, spec, 37, cols, 13, false});  // 8 + 4 + 1
    list.push_back({f, shared32, 37, cols, 1, false});
    list.push_back({f, shared32, 37, cols, 45, false});  // 32 + 13
    list.push_back({f, shared64, 37, cols, 5, false});
    list.push_back({f, spec, 29, cols, 3, true});
    list.push_back({f, shared64, 29, cols, 3, true});
    // Workgroup shapes the tuning benchmarks try, on rows long enough that threads run both the
    // unrolled loop steps and the tail (4352 inputs: 17 Q4_K blocks), with a last workgroup
    // whose rows run past the end.
    list.push_back({f, spec, 37, 4352, 1, false, {32, 4, 4}});
    list.push_back({f, spec, 37, 4352, 8, true, {64, 2, 2}});
    list.push_back({f, spec, 37, 4352, 3, false, {32, 1, 4}});
    list.push_back({f, shared64, 37, 4352, 5, false, {32, 2, 2}});
    // Both column loops of the spec build, whichever the format's default at that count.
    list.push_back({f, spec, 37, 4352, 8, true, {64, 2, 2, ColumnLoop::Rolled}});
    list.push_back({f, spec, 37, 4352, 4, false, {32, 4, 1, ColumnLoop::Unrolled}});
    list.push_back({f, spec, 37, cols, 16, false, {0, 0, 0, ColumnLoop::Rolled}});
  }
  // Inputs that are not a multiple of 256 where the format allows it (not Q8_0: its device
  // layout needs rows of a multiple of 256, engine/quant/device_layout.h).
  for (WeightFormat f : {WeightFormat::F32, WeightFormat::F16}) list.push_back({f, spec, 21, 96, 2, false});
  return list;
}

INSTANTIATE_TEST_SUITE_P(AllFormats, DmmvTest, ::testing::ValuesIn(cases()));

TEST(DmmvOps, SpecCutsColumnCountsIntoPowersOfTwo) {
  Buffer w(device(), row_bytes(WeightFormat::Q4_K, 256) * 8, MemoryUse::Device, "w");
  Buffer x(device(), 4 * 260 * 64, MemoryUse::Device, "x");
  Buffer y(device(), 4 * 8 * 64, MemoryUse::Device, "y");
  ProjectionProblem p{WeightFormat::Q4_K, TensorView::whole(w), TensorView::whole(x), TensorView::whole(y),
                8, 256, 13, 260, 8, false};
  const auto limits = BindingLimits::of(device().info());
  const auto spec = dmmv_ops(p, NumColsMode{false, 64}, limits);
  ASSERT_EQ(spec.size(), 3u);  // 8 + 4 + 1
  EXPECT_EQ(spec[0].spec.values[0], 8);
  EXPECT_EQ(spec[1].spec.values[0], 4);
  EXPECT_EQ(spec[2].spec.values[0], 1);
  const auto shared = dmmv_ops(p, NumColsMode{true, 32}, limits);
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared[0].spec.values[0], 32);
  EXPECT_EQ(shared[0].spec.values[1], 1);
  // The shared build keeps its own shape, not the spec table's for 32 columns.
  EXPECT_EQ(shared[0].spec.values[2], static_cast<int32_t>(shared_dmmv_tuning(WeightFormat::Q4_K).threads));
  EXPECT_EQ(shared[0].spec.values[3], static_cast<int32_t>(shared_dmmv_tuning(WeightFormat::Q4_K).rows));

  // Each piece runs with the default shape for its own column count (threads, rows, unroll at
  // spec ids 2, 3, 5), and a requested field overrides only itself.
  for (const Op& op : spec) {
    const DmmvTuning d = default_dmmv_tuning(WeightFormat::Q4_K, static_cast<uint32_t>(op.spec.values[0]));
    EXPECT_EQ(op.spec.values[2], static_cast<int32_t>(d.threads)) << op.spec.values[0] << " columns";
    EXPECT_EQ(op.spec.values[3], static_cast<int32_t>(d.rows)) << op.spec.values[0] << " columns";
    EXPECT_EQ(op.spec.values[5], static_cast<int32_t>(d.unroll)) << op.spec.values[0] << " columns";
  }
  const auto requested = dmmv_ops(p, NumColsMode{false, 64}, limits, DmmvTuning{0, 0, 3});
  ASSERT_EQ(requested.size(), 3u);
  EXPECT_EQ(requested[0].spec.values[5], 3);
  EXPECT_EQ(requested[0].spec.values[2], static_cast<int32_t>(default_dmmv_tuning(WeightFormat::Q4_K, 8).threads));

  // The column loop (spec id 6: 1 = rolled) follows the piece's default unless requested.
  for (const Op& op : spec) {
    const DmmvTuning d = default_dmmv_tuning(WeightFormat::Q4_K, static_cast<uint32_t>(op.spec.values[0]));
    EXPECT_EQ(op.spec.values[6], d.columns == ColumnLoop::Rolled ? 1 : 0) << op.spec.values[0] << " columns";
  }
  for (const ColumnLoop loop : {ColumnLoop::Unrolled, ColumnLoop::Rolled}) {
    for (const Op& op : dmmv_ops(p, NumColsMode{false, 64}, limits, DmmvTuning{0, 0, 0, loop})) {
      EXPECT_EQ(op.spec.values[6], loop == ColumnLoop::Rolled ? 1 : 0) << column_loop_name(loop);
    }
  }
}

// Every format has a usable shape and a definite column loop at every spec column count.
TEST(DmmvOps, DefaultShapesCoverEveryFormatAndColumnCount) {
  for (WeightFormat f : kAllWeightFormats) {
    for (uint32_t n : kSpecNumCols) {
      const DmmvTuning t = default_dmmv_tuning(f, n);
      EXPECT_GT(t.threads, 0u) << format_name(f) << " " << n;
      EXPECT_GT(t.rows, 0u) << format_name(f) << " " << n;
      EXPECT_GT(t.unroll, 0u) << format_name(f) << " " << n;
      EXPECT_NE(t.columns, ColumnLoop::Default) << format_name(f) << " " << n;
    }
  }
}

TEST(DmmvOps, Q8_0RowsNotAMultipleOf256AreRefusedByName) {
  Buffer w(device(), row_bytes(WeightFormat::Q8_0, 96) * 4, MemoryUse::Device, "w");
  Buffer x(device(), 4 * 96, MemoryUse::Device, "x");
  Buffer y(device(), 4 * 4, MemoryUse::Device, "y");
  const ProjectionProblem p{WeightFormat::Q8_0, TensorView::whole(w), TensorView::whole(x), TensorView::whole(y),
                            4, 96, 1, 96, 4, false};
  try {
    dmmv_ops(p, NumColsMode{}, BindingLimits::of(device().info()));
    ADD_FAILURE() << "rows of 96 Q8_0 weights were accepted";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("dmmv"), std::string::npos) << what;
    EXPECT_NE(what.find("q8_0"), std::string::npos) << what;
    EXPECT_NE(what.find("multiple of 256"), std::string::npos) << what;
    EXPECT_NE(what.find("96"), std::string::npos) << what;
  }
}

TEST(DmmvOps, WeightsLargerThanTheBindingRangeAreSplitByRows) {
  Buffer w(device(), row_bytes(WeightFormat::Q8_0, 256) * 100, MemoryUse::Device, "w");
  Buffer x(device(), 4 * 256, MemoryUse::Device, "x");
  Buffer y(device(), 4 * 100, MemoryUse::Device, "y");
  ProjectionProblem p{WeightFormat::Q8_0, TensorView::whole(w), TensorView::whole(x), TensorView::whole(y),
                100, 256, 1, 256, 100, false};
  BindingLimits limits{16, row_bytes(WeightFormat::Q8_0, 256) * 30};
  const auto ops = dmmv_ops(p, NumColsMode{}, limits);
  ASSERT_GE(ops.size(), 4u);
  uint64_t covered = 0;
  for (const auto& op : ops) {
    EXPECT_LE(op.bindings[0].size, limits.max_range);
    EXPECT_EQ(op.bindings[0].offset % 16, 0u);
    covered += op.bindings[0].size;
  }
  EXPECT_EQ(covered, w.size());
}

}  // namespace
}  // namespace pb::test
