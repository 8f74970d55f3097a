#include "engine/ops/dmmv_intdot_op.h"

#include <algorithm>
#include <string>

#include "engine/ops/row_slices.h"
#include "engine/quant/integer_dot.h"
#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {
namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw UsageError("dmmv_intdot: " + what);
}

// The largest count in kIntdotNumCols not above `left`.
uint32_t piece_cols(uint32_t left) {
  uint32_t count = 1;
  for (uint32_t n : kIntdotNumCols) {
    if (n <= left) count = n;
  }
  return count;
}

}  // namespace

const char* dmmv_intdot_kernel_name(WeightFormat format) {
  switch (format) {
    case WeightFormat::Q8_0: return "dmmv_intdot_q8_0";
    case WeightFormat::Q4_K: return "dmmv_intdot_q4_k";
    case WeightFormat::Q6_K: return "dmmv_intdot_q6_k";
    default: return nullptr;
  }
}

// From the dmmv_intdot_tuning sweep on an NVIDIA H200 (docs/PERFORMANCE.md: the fastest shape
// summed over ffn_up 14336x4096 and ffn_down 4096x14336, median of 3). One column wants enough
// threads per row to keep loads in flight; eight columns want fewer threads per row, since each
// thread already has eight accumulators per row to feed. Q4_K's 32-byte chunks make a row of
// 4096 only 64 chunks: a warp per row with four rows and two chunks each keeps every thread
// loading, where 64 threads would give each thread one chunk and a reduction to wait on.
DmmvIntdotTuning default_dmmv_intdot_tuning(WeightFormat format, uint32_t ncols, uint32_t cols) {
  const bool one = ncols <= 1;
  switch (format) {
    case WeightFormat::Q8_0: return one ? DmmvIntdotTuning{128, 1, 2} : DmmvIntdotTuning{32, 2, 2};
    case WeightFormat::Q4_K: return one && cols > 4096 ? DmmvIntdotTuning{64, 4, 2} : DmmvIntdotTuning{32, 4, 2};
    case WeightFormat::Q6_K: return one ? DmmvIntdotTuning{64, 2, 2} : DmmvIntdotTuning{64, 4, 2};
    default: return {64, 2, 2};
  }
}

bool dmmv_intdot_supported(const DeviceInfo& info, WeightFormat format) {
  const char* name = dmmv_intdot_kernel_name(format);
  return info.caps.integer_dot_product && name != nullptr && find_kernel(name) != nullptr &&
         find_kernel("quantize_x") != nullptr;
}

void require_dmmv_intdot(const DeviceInfo& info) {
  if (find_kernel("quantize_x") == nullptr) {
    throw UsageError(
        "dmmv_activations int8: the integer-dot kernels were not compiled in (this build's glslang lacks "
        "GL_EXT_integer_dot_product; run scripts/setup --glslang-from-source, then rebuild)");
  }
  if (!info.caps.integer_dot_product) {
    throw UsageError("dmmv_activations int8: device '" + info.name +
                     "' has no shaderIntegerDotProduct; use dmmv_activations float");
  }
}

std::vector<Op> dmmv_intdot_ops(const ProjectionProblem& p, const QuantizedX& x, const BindingLimits& limits,
                                const DmmvIntdotTuning& requested) {
  const char* name = dmmv_intdot_kernel_name(p.format);
  require(name != nullptr, std::string("no integer-dot kernel for ") + std::string(format_name(p.format)) +
                               " weights (Q8_0, Q4_K and Q6_K have one)");
  const Kernel* k = find_kernel(name);
  require(k != nullptr, std::string("kernel ") + name +
                            " was not compiled in (integer-dot kernels need glslang >= 14 with "
                            "GL_EXT_integer_dot_product; see the configure output)");
  // The kernel sizes its reduction for subgroups of at least 8.
  const auto valid = [](const DmmvIntdotTuning& t) {
    return (t.threads == 0 || (t.threads >= 8 && t.threads % 8 == 0 && t.threads <= 1024)) && t.rows <= 8 &&
           t.unroll <= 4;
  };
  require(valid(requested), "tuning needs threads a multiple of 8 up to 1024, rows 1..8, unroll 1..4");
  require(p.rows > 0 && p.ncols > 0 && has_integer_dot_path(p.format, p.cols),
          std::string(format_name(p.format)) + " needs cols a positive multiple of " +
              std::to_string(integer_dot_cols_multiple(p.format)));
  require(p.y_stride >= p.rows, "y_stride must be >= rows");
  require(x.cols == p.cols && x.ncols >= p.ncols, "the quantized x holds other cols or fewer columns");
  const uint64_t rb = row_bytes(p.format, p.cols);
  const uint32_t slice_rows = rows_per_slice(rb, p.rows, limits);
  std::vector<Op> ops;
  for (uint32_t first = 0; first < p.ncols;) {
    const uint32_t count = piece_cols(p.ncols - first);
    const DmmvIntdotTuning defaults = default_dmmv_intdot_tuning(p.format, count, p.cols);
    const DmmvIntdotTuning t{requested.threads ? requested.threads : defaults.threads,
                             requested.rows ? requested.rows : defaults.rows,
                             requested.unroll ? requested.unroll : defaults.unroll};
    const AlignedWindow xq = aligned_window(x.quants, uint64_t(first) * p.cols, uint64_t(first + count) * p.cols, limits);
    const AlignedWindow xs = aligned_window(x.scales, uint64_t(first) * p.cols / 4,
                                            uint64_t(first + count) * p.cols / 4, limits);  // 8 bytes per 32
    const AlignedWindow y = aligned_window(p.y, uint64_t(first) * p.y_stride * 4,
                                           (uint64_t(first + count - 1) * p.y_stride + p.rows) * 4, limits);
    require(xq.first_float % 4 == 0 && xs.first_float % 2 == 0,
            "the quants must start on 16 bytes and the scales on 8");
    for (uint32_t row0 = 0; row0 < p.rows; row0 += slice_rows) {
      const uint32_t rows = std::min(slice_rows, p.rows - row0);
      Op op;
      op.kernel = k;
      op.spec.set(0, static_cast<int32_t>(count))
          .set(2, static_cast<int32_t>(t.threads))
          .set(3, static_cast<int32_t>(t.rows))
          .set(4, p.accumulate ? 1 : 0)
          .set(5, static_cast<int32_t>(t.unroll));
      op.bindings = {p.weights.slice(row0 * rb, rows * rb).read(), xq.view.read(), xs.view.read(),
                     p.accumulate ? y.view.read_write() : y.view.write()};
      op.push = PushConstants::of(
          DmmvIntdotPush{rows, p.cols, p.y_stride, row0, y.first_float, xq.first_float / 4, xs.first_float / 2});
      const uint32_t groups = ceil_div(rows, t.rows);
      const uint32_t gx = std::min<uint32_t>(groups, 65535);
      op.groups = {gx, ceil_div(groups, gx), 1};
      op.label = "dmmv_intdot";
      ops.push_back(op);
    }
    first += count;
  }
  return ops;
}

}  // namespace pb
