// What the integer-dot DMMV's op builder (engine/ops/dmmv_intdot_op.h) gives each piece of a
// projection, and what it refuses: kernels by format, chunk and column count, the matrix kernels'
// shapes and the pieces they take, the int8 matrix kernel's K split and its regions of
// split_sums, and every tuning, problem or view the kernels cannot run, as a UsageError. It only
// builds ops; dmmv_intdot_test runs them against the references.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "engine/ops/dmmv_intdot_op.h"
#include "harness/build_info.h"
#include "harness/errors.h"
#include "kernels/registry.h"
#include "tests/support/gpu_test.h"

namespace pb::test {
namespace {

TEST(DmmvIntdotOps, RefusesWhatTheKernelsCannotRun) {
  Buffer any(device(), 1 << 20, MemoryUse::Device, "any");
  const BindingLimits limits = BindingLimits::of(device().info());
  const QuantizedX qx = quantized_x_in(TensorView::whole(any), 512, 2, limits);
  const auto problem = [&](WeightFormat f, uint32_t cols) {
    return ProjectionProblem{f, TensorView::whole(any), TensorView::whole(any), TensorView::whole(any),
                             8, cols, 2, cols, 8, false};
  };
  EXPECT_THROW(dmmv_intdot_ops(problem(WeightFormat::F16, 512), qx, limits), UsageError);
  EXPECT_EQ(dmmv_intdot_kernel_name(WeightFormat::F32), nullptr);
  EXPECT_FALSE(dmmv_intdot_supported(device().info(), WeightFormat::F16));
  EXPECT_THROW(quantized_x_in(TensorView::whole(any), 100, 1, limits), UsageError);
  if (!build_info().has_intdot_shaders) return;  // the other refusals need the kernels
  EXPECT_THROW(dmmv_intdot_ops(problem(WeightFormat::Q4_K, 256), qx, limits), UsageError);  // x of other cols
  const QuantizedX qx96 = quantized_x_in(TensorView::whole(any), 96, 2, limits);
  EXPECT_THROW(dmmv_intdot_ops(problem(WeightFormat::Q8_0, 96), qx96, limits), UsageError);  // 64 ∤ 96
  EXPECT_THROW(dmmv_intdot_ops(problem(WeightFormat::Q4_K, 512), qx, limits, DmmvIntdotTuning{12, 1, 1}), UsageError);
  const auto ops = dmmv_intdot_ops(ProjectionProblem{WeightFormat::Q4_K, TensorView::whole(any), TensorView::whole(any),
                                                     TensorView::whole(any), 8, 512, 2, 512, 8, false},
                                   quantized_x_in(TensorView::whole(any), 512, 2, limits), limits);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].spec.values[0], 2);
  // Wide rows take their own shape where the sweep found one (Q8_0 at 8 columns: whole blocks,
  // 64 threads).
  const QuantizedX qx8 = quantized_x_in(TensorView::whole(any), 8448, 8, limits);
  const auto wide = dmmv_intdot_ops(ProjectionProblem{WeightFormat::Q8_0, TensorView::whole(any), TensorView::whole(any),
                                                      TensorView::whole(any), 8, 8448, 8, 8448, 8, false},
                                    qx8, limits);
  ASSERT_EQ(wide.size(), 1u);
  EXPECT_EQ(wide[0].spec.values[2], 64);
  EXPECT_EQ(wide[0].kernel, find_kernel("dmmv_intdot_q8_032"));
  EXPECT_EQ(default_dmmv_intdot_tuning(WeightFormat::Q8_0, 8, 4096).threads, 32u);
  EXPECT_EQ(default_dmmv_intdot_tuning(WeightFormat::Q8_0, 1, 8448).threads, 256u);
  // Chunks of 16, 32 or 64 weights for Q4_K, 16 or 32 for Q8_0, none to choose for Q6_K.
  DmmvIntdotTuning chunked;
  chunked.chunk = 64;
  EXPECT_THROW(dmmv_intdot_ops(problem(WeightFormat::Q8_0, 512), qx, limits, chunked), UsageError);
  chunked.chunk = 8;
  EXPECT_THROW(dmmv_intdot_ops(problem(WeightFormat::Q4_K, 512), qx, limits, chunked), UsageError);
  chunked.chunk = 32;
  EXPECT_THROW(dmmv_intdot_ops(problem(WeightFormat::Q6_K, 512), qx, limits, chunked), UsageError);
  EXPECT_EQ(dmmv_intdot_ops(problem(WeightFormat::Q8_0, 512), qx, limits, chunked).at(0).kernel,
            find_kernel("dmmv_intdot_q8_032"));
  // The matrix kernel exists for Q8_0 and Q4_K, in shapes of 16 or 32 rows and 1..16 subgroups.
  DmmvIntdotTuning matrix;
  matrix.matrix = {1, 0, 0};
  EXPECT_THROW(dmmv_intdot_ops(problem(WeightFormat::Q6_K, 512), qx, limits, matrix), UsageError);
  EXPECT_EQ(dmmv_coopmat_kernel_name(WeightFormat::Q6_K), nullptr);
  EXPECT_FALSE(dmmv_coopmat_supported(device().info(), WeightFormat::Q6_K));
  matrix.matrix = {1, 4, 24};
  EXPECT_THROW(dmmv_intdot_ops(problem(WeightFormat::Q4_K, 512), qx, limits, matrix), UsageError);
  EXPECT_FALSE(dmmv_coopmat_supported(device().info(), WeightFormat::Q4_K, matrix.matrix));
  matrix.matrix = {1, 17, 16};
  EXPECT_THROW(dmmv_intdot_ops(problem(WeightFormat::Q8_0, 512), qx, limits, matrix), UsageError);
  matrix.matrix = {1, 4, 16, 96};
  EXPECT_THROW(dmmv_intdot_ops(problem(WeightFormat::Q8_0, 512), qx, limits, matrix), UsageError);
  // Q8_0 rows of a multiple of 256 only (its device layout, engine/quant/device_layout.h).
  const QuantizedX qx192 = quantized_x_in(TensorView::whole(any), 192, 2, limits);
  try {
    dmmv_intdot_ops(problem(WeightFormat::Q8_0, 192), qx192, limits, DmmvIntdotTuning{});
    ADD_FAILURE() << "rows of 192 Q8_0 weights were accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of 256"), std::string::npos) << e.what();
  }
  // The engine's choice: the matrix kernel from 16 columns, where the device has it; a
  // 24-column problem is then one matrix piece of 16 and an integer-dot piece of 8.
  const DmmvIntdotTuning choice = dmmv_intdot_choice(device().info(), WeightFormat::Q4_K, true);
  EXPECT_EQ(choice.matrix.from_cols, dmmv_coopmat_supported(device().info(), WeightFormat::Q4_K) ? 16u : 0u);
  EXPECT_EQ(dmmv_intdot_choice(device().info(), WeightFormat::Q4_K, false).matrix.from_cols, 0u);
  if (find_kernel("dmmv_coopmat_q4_k") != nullptr) {
    const QuantizedX qx24 = quantized_x_in(TensorView::whole(any), 512, 24, limits);
    ProjectionProblem p = problem(WeightFormat::Q4_K, 512);
    p.ncols = 24;
    matrix.matrix = {16, 0, 0, 0};
    const auto pieces = dmmv_intdot_ops(p, qx24, limits, matrix);
    ASSERT_EQ(pieces.size(), 2u);
    EXPECT_EQ(pieces[0].kernel, find_kernel("dmmv_coopmat_q4_k"));
    EXPECT_EQ(pieces[0].spec.values[0], 16);
    EXPECT_EQ(pieces[1].kernel, find_kernel("dmmv_intdot_q4_k32"));
  }
  // The int8 matrix kernel for Q8_0 and Q4_K only, in shapes of 16, 32 or 64 rows, 1..16
  // subgroups, steps of 2, 4 or 8 blocks and 1, 2, 4 or 8 splits of K; it takes pieces of 8 and
  // 16 columns with at least a workgroup's rows.
  DmmvIntdotTuning int8_matrix;
  int8_matrix.int8_matrix = {8, 0, 0, 0, 0};
  EXPECT_THROW(dmmv_intdot_ops(problem(WeightFormat::Q6_K, 512), qx, limits, int8_matrix), UsageError);
  EXPECT_EQ(dmmv_int8mat_kernel_name(WeightFormat::Q6_K), nullptr);
  EXPECT_FALSE(dmmv_int8mat_supported(device().info(), WeightFormat::Q6_K));
  for (const DmmvInt8MatTuning bad : {DmmvInt8MatTuning{8, 0, 17, 16, 2}, DmmvInt8MatTuning{8, 0, 4, 24, 2},
                                      DmmvInt8MatTuning{8, 0, 4, 16, 3}, DmmvInt8MatTuning{8, 0, 4, 16, 2, 3}}) {
    int8_matrix.int8_matrix = bad;
    EXPECT_THROW(dmmv_intdot_ops(problem(WeightFormat::Q8_0, 512), qx, limits, int8_matrix), UsageError);
    EXPECT_FALSE(dmmv_int8mat_supported(device().info(), WeightFormat::Q8_0, bad));
  }
  // Its defaults: 64-row workgroups on tall matrices, more and smaller ones on others; rows of
  // more than kIntdotWideCols inputs split K, at 8 columns in four where their steps divide so
  // (14336 inputs in steps of 2 blocks), in two where only that divides (8320 = 130 steps), and
  // none where neither does (8256 = 129 steps), which keeps them off it.
  EXPECT_EQ(default_dmmv_int8mat_tuning(WeightFormat::Q4_K, 8, 14336, 4096).rows, 64u);
  EXPECT_EQ(default_dmmv_int8mat_tuning(WeightFormat::Q4_K, 8, 14336, 4096).splits, 1u);
  EXPECT_EQ(default_dmmv_int8mat_tuning(WeightFormat::Q4_K, 8, 4096, 4096).rows, 32u);
  EXPECT_EQ(default_dmmv_int8mat_tuning(WeightFormat::Q8_0, 16, 4096, 4096).rows, 16u);
  EXPECT_EQ(default_dmmv_int8mat_tuning(WeightFormat::Q4_K, 8, 4096, 14336).rows, 64u);
  EXPECT_EQ(default_dmmv_int8mat_tuning(WeightFormat::Q4_K, 8, 4096, 14336).splits, 4u);
  EXPECT_EQ(default_dmmv_int8mat_tuning(WeightFormat::Q4_K, 16, 4096, 14336).splits, 2u);
  EXPECT_EQ(default_dmmv_int8mat_tuning(WeightFormat::Q8_0, 8, 4096, 8320).splits, 2u);
  EXPECT_EQ(default_dmmv_int8mat_tuning(WeightFormat::Q8_0, 8, 4096, 8256).splits, 1u);
  int8_matrix.int8_matrix = {8, 0, 0, 0, 0};
  EXPECT_EQ(dmmv_int8mat_split_bytes(problem(WeightFormat::Q8_0, 8256), int8_matrix, limits), 0u);
  const DmmvIntdotTuning engine = dmmv_intdot_choice(device().info(), WeightFormat::Q8_0, true);
  EXPECT_EQ(engine.int8_matrix.from_cols, dmmv_int8mat_supported(device().info(), WeightFormat::Q8_0, {}, 8) &&
                                                  dmmv_int8mat_supported(device().info(), WeightFormat::Q8_0, {}, 16)
                                              ? 8u
                                              : 0u);
  EXPECT_EQ(dmmv_intdot_choice(device().info(), WeightFormat::Q8_0, false).int8_matrix.from_cols, 0u);
  if (find_kernel("dmmv_int8mat_q4_k") != nullptr) {
    const QuantizedX qx13 = quantized_x_in(TensorView::whole(any), 512, 13, limits);
    ProjectionProblem p = problem(WeightFormat::Q4_K, 512);
    p.rows = p.y_stride = 16;
    p.ncols = 13;
    int8_matrix.int8_matrix = {8, 0, 4, 16, 2};
    const auto pieces = dmmv_intdot_ops(p, qx13, limits, int8_matrix);
    ASSERT_EQ(pieces.size(), 3u);
    EXPECT_EQ(pieces[0].kernel, find_kernel("dmmv_int8mat_q4_k"));
    EXPECT_EQ(std::string(pieces[0].label), "dmmv_int8mat");
    EXPECT_EQ(pieces[1].kernel, find_kernel("dmmv_intdot_q4_k32"));  // 4 columns
    p.rows = 15;  // fewer rows than a workgroup's 16
    EXPECT_EQ(std::string(dmmv_intdot_ops(p, qx13, limits, int8_matrix).at(0).label), "dmmv_intdot");
    p.rows = 16;
    int8_matrix.int8_matrix.max_cols = 256;  // rows of more inputs stay on the integer dot
    EXPECT_EQ(std::string(dmmv_intdot_ops(p, qx13, limits, int8_matrix).at(0).label), "dmmv_intdot");
    int8_matrix.int8_matrix.max_cols = 512;
    EXPECT_EQ(std::string(dmmv_intdot_ops(p, qx13, limits, int8_matrix).at(0).label), "dmmv_int8mat");
  }
  if (find_kernel("dmmv_int8mat_q4_k_split") != nullptr) {
    // K split in four: binding 4 a region of split_sums per piece (16 and 8 columns), disjoint,
    // aligned, inside the view; the grid's z the splits. Without the view, or with one too
    // small, the builder refuses.
    const QuantizedX qx24 = quantized_x_in(TensorView::whole(any), 1280, 24, limits);
    ProjectionProblem p = problem(WeightFormat::Q4_K, 1280);
    p.rows = p.y_stride = 100;
    p.ncols = 24;
    int8_matrix.int8_matrix = {8, 0, 2, 64, 2, 4};
    const uint64_t bytes = dmmv_int8mat_split_bytes(p, int8_matrix, limits);
    // Per piece: two row groups' counters on 16 bytes, and 2 groups x 4 splits x 64 rows x its columns.
    EXPECT_GE(bytes, (16 + 2 * 4 * 64 * 16 * 4) + (16 + 2 * 4 * 64 * 8 * 4));
    const TensorView sums = TensorView::whole(any).slice(0, bytes);
    EXPECT_THROW(dmmv_intdot_ops(p, qx24, limits, int8_matrix), UsageError);
    EXPECT_THROW(dmmv_intdot_ops(p, qx24, limits, int8_matrix, sums.slice(0, bytes - 4)), UsageError);
    const auto pieces = dmmv_intdot_ops(p, qx24, limits, int8_matrix, sums);
    ASSERT_EQ(pieces.size(), 2u);
    for (const Op& op : pieces) {
      EXPECT_EQ(op.kernel, find_kernel("dmmv_int8mat_q4_k_split"));
      EXPECT_EQ(op.groups[2], 4u);
      ASSERT_EQ(op.bindings.size(), 5u);
      EXPECT_EQ(op.bindings[4].offset % limits.offset_alignment, 0u);
      EXPECT_LE(op.bindings[4].offset + op.bindings[4].size, bytes);
    }
    EXPECT_LE(pieces[0].bindings[4].offset + pieces[0].bindings[4].size, pieces[1].bindings[4].offset);
    int8_matrix.int8_matrix.splits = 8;  // 40 blocks are not 8 splits of steps of 2
    EXPECT_THROW(dmmv_intdot_ops(p, qx24, limits, int8_matrix, sums), UsageError);
    int8_matrix.int8_matrix.splits = 1;  // none: the plain kernel, no view needed
    EXPECT_EQ(dmmv_int8mat_split_bytes(p, int8_matrix, limits), 0u);
    EXPECT_EQ(dmmv_intdot_ops(p, qx24, limits, int8_matrix).at(0).kernel, find_kernel("dmmv_int8mat_q4_k"));
  }
  // Q4_K's default: 64-weight chunks for one column, sub-blocks from two to eight columns,
  // 16-weight chunks for sixteen (where they stay on the integer dot).
  const QuantizedX qx16 = quantized_x_in(TensorView::whole(any), 512, 16, limits);
  for (const auto& [ncols, kernel_name] : {std::pair{1u, "dmmv_intdot_q4_k"}, std::pair{4u, "dmmv_intdot_q4_k32"},
                                           std::pair{16u, "dmmv_intdot_q4_k16"}}) {
    ProjectionProblem p = problem(WeightFormat::Q4_K, 512);
    p.ncols = ncols;
    const auto chosen = dmmv_intdot_ops(p, qx16, limits);
    ASSERT_EQ(chosen.size(), 1u);
    EXPECT_EQ(chosen[0].kernel, find_kernel(kernel_name)) << ncols << " columns";
  }
}

}  // namespace
}  // namespace pb::test
