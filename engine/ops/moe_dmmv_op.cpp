#include "engine/ops/moe_dmmv_op.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "engine/ops/column_span.h"
#include "engine/quant/device_layout.h"
#include "harness/errors.h"
#include "harness/folded_grid.h"
#include "kernels/registry.h"

namespace pb {
namespace {

// Experts per weight binding, so that a slice fits the device's binding range and starts
// aligned: all of them where they fit. Throws UsageError (naming `op`) when one does not.
uint32_t experts_per_slice(uint64_t expert_bytes, uint32_t experts, const BindingLimits& limits, const char* op) {
  if (expert_bytes * experts <= limits.max_range) return experts;
  const uint64_t step = limits.offset_alignment / std::gcd(expert_bytes, limits.offset_alignment);
  uint64_t fit = limits.max_range / expert_bytes;
  fit -= fit % step;
  if (fit == 0) {
    throw UsageError(std::string(op) + ": one expert's " + std::to_string(expert_bytes) +
                     " bytes (with the offset alignment) exceed the device's maxStorageBufferRange");
  }
  return static_cast<uint32_t>(fit);
}

}  // namespace

uint64_t check_moe_problem(const MoeDmmvProblem& p, const char* op) {
  const std::string who = op;
  const uint64_t rb = row_bytes(p.format, p.cols);  // throws on a misfit cols
  require_device_cols(p.format, p.cols, op);
  if (p.rows % device_rows_multiple(p.format) != 0) {
    throw UsageError(who + ": " + std::string(format_name(p.format)) + " experts need a multiple of " +
                     std::to_string(device_rows_multiple(p.format)) + " rows each (the device layout groups rows " +
                     "and every expert starts a group); got " + std::to_string(p.rows));
  }
  if (p.rows == 0 || p.x_stride % 4 != 0 || p.x_stride < p.cols || p.y_stride < p.rows) {
    throw UsageError(who + ": needs rows > 0, x_stride a multiple of 4 and >= cols, y_stride >= rows");
  }
  if (p.x.offset % 16 != 0) throw UsageError(who + ": x must start at a multiple of 16 bytes");
  const uint64_t expert_bytes = rb * p.rows;
  if (!p.weights.buffer) throw UsageError(who + " weights: no buffer");
  if (p.weights.bytes < expert_bytes * p.shape.n_experts) {
    throw UsageError(who + " weights: " + std::to_string(p.shape.n_experts) + " experts need " +
                     std::to_string(expert_bytes * p.shape.n_experts) + " bytes; the view has " +
                     std::to_string(p.weights.bytes));
  }
  return expert_bytes;
}

const char* moe_dmmv_kernel_name(WeightFormat format) {
  switch (format) {
    case WeightFormat::F32: return "moe_dmmv_f32";
    case WeightFormat::F16: return "moe_dmmv_f16";
    case WeightFormat::Q8_0: return "moe_dmmv_q8_0";
    case WeightFormat::Q4_K: return "moe_dmmv_q4_k";
    case WeightFormat::Q6_K: return "moe_dmmv_q6_k";
  }
  return "?";
}

MoeDmmvTuning moe_dmmv_tuning(const DeviceInfo& info, WeightFormat format, uint32_t ncols) {
  if (format == WeightFormat::Q4_K && ncols == 1 && info.subgroup_size == 32) return MoeDmmvTuning{32, 2, 0};
  return MoeDmmvTuning{};
}

uint32_t moe_num_cols(NumColsMode mode, uint32_t ncols) {
  if (mode.shared) return mode.max_cols;
  const uint32_t want = std::min<uint32_t>(ncols, 8);
  for (uint32_t n : kSpecNumCols) {
    if (n >= want) return n;
  }
  return 8;
}

std::vector<Op> moe_dmmv_ops(const MoeDmmvProblem& p, const MoeRouting& routing, NumColsMode mode,
                             const BindingLimits& limits, const MoeDmmvTuning& tuning) {
  const uint64_t expert_bytes = check_moe_problem(p, "moe_dmmv");
  const uint32_t row_blocks = ceil_div(p.rows, tuning.rows);
  if (row_blocks > kMaxGroupsX) throw UsageError("moe_dmmv: more than 65535 row blocks");
  const uint32_t num_cols = tuning.num_cols != 0 ? tuning.num_cols : moe_num_cols(mode, p.ncols);
  Op op;
  op.kernel = &kernel(moe_dmmv_kernel_name(p.format));
  op.spec.set(0, static_cast<int32_t>(num_cols))
      .set(1, static_cast<int32_t>(p.input))
      .set(2, static_cast<int32_t>(tuning.threads))
      .set(3, static_cast<int32_t>(tuning.rows));
  op.groups = {row_blocks, moe_item_capacity(p.shape, p.ncols), 1};
  op.label = "moe_dmmv";
  return moe_slice_ops(p, routing, limits, expert_bytes, op);
}

std::vector<Op> moe_expert_slice_ops(const MoeDmmvProblem& p, const MoeRouting& routing, const BindingLimits& limits,
                                     uint64_t expert_bytes, const Op& prototype, const std::vector<BufferRef>& inputs,
                                     const BufferRef& y, const MoeSlicePush& push) {
  const MoeShape& s = p.shape;
  const auto work_list = moe_work_list_reads(s, p.ncols, routing);  // checks E, K and C
  const uint32_t slice = experts_per_slice(expert_bytes, s.n_experts, limits, prototype.label);
  std::vector<Op> ops;
  for (uint32_t e0 = 0; e0 < s.n_experts; e0 += slice) {
    const uint32_t count = std::min(slice, s.n_experts - e0);
    Op op = prototype;
    op.bindings = {p.weights.slice(e0 * expert_bytes, count * expert_bytes).read()};
    op.bindings.insert(op.bindings.end(), inputs.begin(), inputs.end());
    op.bindings.push_back(y);
    op.bindings.insert(op.bindings.end(), work_list.begin(), work_list.end());
    op.push = push(e0, count);
    op.phase = p.input == MoeInput::Token ? Phase::MoeGateUp : Phase::MoeDown;
    ops.push_back(op);
  }
  return ops;
}

AlignedWindow moe_output_window(const MoeDmmvProblem& p, const BindingLimits& limits, const std::string& what) {
  return aligned_window(p.y, 0, column_span(p.y, p.ncols * p.shape.top_k, p.y_stride, p.rows, what + " y").bytes,
                        limits);
}

std::vector<Op> moe_slice_ops(const MoeDmmvProblem& p, const MoeRouting& routing, const BindingLimits& limits,
                              uint64_t expert_bytes, const Op& prototype) {
  const MoeShape& s = p.shape;
  const std::string what = prototype.label;
  const uint32_t x_cols = p.input == MoeInput::Token ? p.ncols : p.ncols * s.top_k;
  const AlignedWindow x =
      aligned_window(p.x, 0, column_span(p.x, x_cols, p.x_stride, p.cols, what + " x").bytes, limits);
  const AlignedWindow y = moe_output_window(p, limits, what);
  return moe_expert_slice_ops(p, routing, limits, expert_bytes, prototype, {x.view.read()}, y.view.write(),
                              [&](uint32_t e0, uint32_t count) {
                                return PushConstants::of(MoeDmmvPush{p.rows, p.cols, s.top_k, p.x_stride,
                                                                     p.y_stride, x.first_float, y.first_float, e0,
                                                                     count});
                              });
}

}  // namespace pb
