#include "engine/ops/dmmv_op.h"

#include <algorithm>
#include <iterator>
#include <numeric>

#include "engine/ops/row_slices.h"
#include "engine/quant/device_layout.h"
#include "harness/errors.h"
#include "harness/folded_grid.h"
#include "kernels/registry.h"

namespace pb {
namespace {

// Column pieces [first, first + count).
std::vector<std::pair<uint32_t, uint32_t>> column_pieces(uint32_t ncols, NumColsMode mode) {
  std::vector<std::pair<uint32_t, uint32_t>> pieces;
  for (uint32_t first = 0; first < ncols;) {
    const uint32_t left = ncols - first;
    uint32_t count = std::min(left, mode.max_cols);
    if (!mode.shared) {
      count = 1;
      for (uint32_t n : kSpecNumCols) {
        if (n <= left) count = n;
      }
    }
    pieces.emplace_back(first, count);
    first += count;
  }
  return pieces;
}

}  // namespace

const char* column_loop_name(ColumnLoop loop) {
  switch (loop) {
    case ColumnLoop::Default: return "default";
    case ColumnLoop::Unrolled: return "unrolled";
    case ColumnLoop::Rolled: return "rolled";
  }
  return "?";
}

const char* dmmv_kernel_name(WeightFormat format) {
  switch (format) {
    case WeightFormat::F32: return "dmmv_f32";
    case WeightFormat::F16: return "dmmv_f16";
    case WeightFormat::Q8_0: return "dmmv_q8_0";
    case WeightFormat::Q4_K: return "dmmv_q4_k";
    case WeightFormat::Q6_K: return "dmmv_q6_k";
  }
  return "?";
}

// Shapes (threads, rows, unroll, column loop) for 1, 2, 4, ..., 64 columns: the fastest in
// medians of 5 summed over ffn_up 14336x4096 and ffn_down 4096x14336 on an H200, among the few
// best of a one-run sweep (docs/GPU_FIGURES.md, 2026-11-22): threads 32 to 256, rows 1 to 4 and
// unroll 1 to 4 up to 8 columns; unroll 1 to 2 and both column loops from 16 on. Against the
// shapes before them, for example: Q4_K 8 columns 257 -> 129 us on ffn_down, Q8_0 one column
// 30.7 -> 25.8; at 64 columns (summed) Q4_K 16206 -> 4175, Q8_0 2334 -> 1419, F16 2261 ->
// 1387. The rolled column loop won nowhere on the H200, yet Q4_K takes it at 64 columns: the
// unrolled 64x1x2, 2% faster there, took lavapipe's LLVM over 120 s to compile. Elsewhere it
// stays a tuning choice for devices with fewer registers.
DmmvTuning default_dmmv_tuning(WeightFormat format, uint32_t ncols) {
  constexpr ColumnLoop U = ColumnLoop::Unrolled;
  constexpr ColumnLoop R = ColumnLoop::Rolled;
  using T = DmmvTuning;
  //                               1 column        2               4               8               16              32              64
  static constexpr T kF16[] = {{256, 2, 1, U}, {64, 2, 1, U}, {64, 4, 1, U}, {64, 4, 1, U}, {64, 4, 1, U}, {64, 2, 1, U}, {64, 2, 1, U}};
  static constexpr T kQ8_0[] = {{128, 2, 4, U}, {128, 2, 2, U}, {64, 4, 1, U}, {64, 4, 2, U}, {64, 2, 2, U}, {64, 2, 1, U}, {64, 2, 1, U}};
  static constexpr T kQ4_K[] = {{64, 2, 2, U}, {64, 2, 2, U}, {64, 2, 2, U}, {64, 2, 2, U}, {64, 2, 1, U}, {32, 1, 2, U}, {32, 1, 1, R}};
  static constexpr T kQ6_K[] = {{128, 2, 2, U}, {128, 2, 2, U}, {128, 2, 2, U}, {64, 2, 1, U}, {64, 2, 1, U}, {64, 2, 1, U}, {32, 1, 1, U}};
  static constexpr T kF32 = {64, 1, 1, U};  // not swept
  size_t i = 0;
  while (i + 1 < std::size(kSpecNumCols) && kSpecNumCols[i] < ncols) ++i;
  switch (format) {
    case WeightFormat::F16: return kF16[i];
    case WeightFormat::Q8_0: return kQ8_0[i];
    case WeightFormat::Q4_K: return kQ4_K[i];
    case WeightFormat::Q6_K: return kQ6_K[i];
    case WeightFormat::F32: return kF32;
  }
  return kF32;
}

// The shared build is the register-pressure reference of the `num_cols` axis, so it keeps the
// one shape per format it has been measured with (docs/PERFORMANCE.md) rather than following
// the spec tables; its column loop is always rolled.
DmmvTuning shared_dmmv_tuning(WeightFormat format) {
  switch (format) {
    case WeightFormat::Q4_K: return {64, 2, 1, ColumnLoop::Rolled};
    case WeightFormat::Q6_K: return {128, 1, 1, ColumnLoop::Rolled};
    default: return {64, 1, 1, ColumnLoop::Rolled};
  }
}

std::vector<Op> dmmv_ops(const ProjectionProblem& p, NumColsMode mode, const BindingLimits& limits,
                         const DmmvTuning& requested) {
  const uint64_t rb = row_bytes(p.format, p.cols);  // throws on a misfit cols
  require_device_cols(p.format, p.cols, "dmmv");
  if (p.x_stride % 4 != 0 || p.x_stride < p.cols || p.y_stride < p.rows) {
    throw UsageError("dmmv: x_stride must be a multiple of 4 and >= cols, y_stride >= rows");
  }
  const Kernel& k = kernel(dmmv_kernel_name(p.format));
  const uint32_t slice_rows = rows_per_slice(rb, p.rows, limits, device_rows_multiple(p.format));
  std::vector<Op> ops;
  for (const auto& [first_col, count] : column_pieces(p.ncols, mode)) {
    const AlignedWindow x = aligned_window(p.x, uint64_t(first_col) * p.x_stride * 4,
                                           (uint64_t(first_col + count - 1) * p.x_stride + p.cols) * 4,
                                           limits);
    const AlignedWindow y = aligned_window(p.y, uint64_t(first_col) * p.y_stride * 4,
                                           (uint64_t(first_col + count - 1) * p.y_stride + p.rows) * 4,
                                           limits);
    const DmmvTuning defaults = mode.shared ? shared_dmmv_tuning(p.format) : default_dmmv_tuning(p.format, count);
    const DmmvTuning tuning{requested.threads ? requested.threads : defaults.threads,
                            requested.rows ? requested.rows : defaults.rows,
                            requested.unroll ? requested.unroll : defaults.unroll,
                            requested.columns != ColumnLoop::Default ? requested.columns : defaults.columns};
    for (uint32_t row0 = 0; row0 < p.rows; row0 += slice_rows) {
      const uint32_t rows = std::min(slice_rows, p.rows - row0);
      Op op;
      op.kernel = &k;
      op.spec.set(0, static_cast<int32_t>(mode.shared ? mode.max_cols : count))
          .set(1, mode.shared ? 1 : 0)
          .set(2, static_cast<int32_t>(tuning.threads))
          .set(3, static_cast<int32_t>(tuning.rows))
          .set(4, p.accumulate ? 1 : 0)
          .set(5, static_cast<int32_t>(tuning.unroll))
          .set(6, tuning.columns == ColumnLoop::Rolled ? 1 : 0);
      op.bindings = {p.weights.slice(row0 * rb, rows * rb).read(), x.view.read(),
                     p.accumulate ? y.view.read_write() : y.view.write()};
      op.push = PushConstants::of(DmmvPush{rows, p.cols, count, p.x_stride, p.y_stride, row0,
                                           x.first_float, y.first_float});
      const uint32_t groups = ceil_div(rows, tuning.rows);
      op.groups = folded_grid(groups);
      op.label = "dmmv";
      ops.push_back(op);
    }
  }
  return ops;
}

}  // namespace pb
