#include "engine/ops/quantize_x_op.h"

#include <algorithm>
#include <string>

#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {
namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw UsageError("quantize_x: " + what);
}

uint64_t round_up(uint64_t value, uint64_t step) { return (value + step - 1) / step * step; }

uint64_t quants_bytes(uint32_t cols, uint32_t ncols) { return uint64_t(cols) * ncols; }
uint64_t scales_bytes(uint32_t cols, uint32_t ncols) { return uint64_t(cols / kQuantizedXBlock) * ncols * 8; }

// Where a deferred norm's block squares start in its storage: after its one column's quants and
// scales, where a binding may start.
uint64_t block_squares_offset(uint32_t cols, const BindingLimits& limits) {
  return round_up(quantized_x_bytes(cols, 1, limits), std::max<uint64_t>(limits.offset_alignment, 16));
}

}  // namespace

uint64_t quantized_x_bytes(uint32_t cols, uint32_t ncols, const BindingLimits& limits) {
  const uint64_t align = std::max<uint64_t>(limits.offset_alignment, 16);
  return round_up(quants_bytes(cols, ncols), align) + scales_bytes(cols, ncols);
}

QuantizedX quantized_x_in(const TensorView& storage, uint32_t cols, uint32_t ncols, const BindingLimits& limits) {
  require(cols > 0 && cols % kQuantizedXBlock == 0, "cols must be a positive multiple of 32");
  require(storage.bytes >= quantized_x_bytes(cols, ncols, limits),
          "storage of " + std::to_string(storage.bytes) + " bytes is shorter than the " +
              std::to_string(quantized_x_bytes(cols, ncols, limits)) + " needed");
  const uint64_t align = std::max<uint64_t>(limits.offset_alignment, 16);
  const uint64_t scales_at = round_up(quants_bytes(cols, ncols), align);
  return {storage.slice(0, quants_bytes(cols, ncols)), storage.slice(scales_at, scales_bytes(cols, ncols)), cols,
          ncols};
}

uint64_t deferred_norm_bytes(uint32_t cols, const BindingLimits& limits) {
  return block_squares_offset(cols, limits) + uint64_t(cols / kQuantizedXBlock) * 4;
}

QuantizedX deferred_norm_in(const TensorView& storage, uint32_t cols, float eps, const BindingLimits& limits) {
  require(storage.bytes >= deferred_norm_bytes(cols, limits),
          "storage of " + std::to_string(storage.bytes) + " bytes is shorter than the " +
              std::to_string(deferred_norm_bytes(cols, limits)) + " a deferred norm needs");
  QuantizedX q = quantized_x_in(storage, cols, 1, limits);
  q.rms = DeferredRms{storage.slice(block_squares_offset(cols, limits), uint64_t(cols / kQuantizedXBlock) * 4), eps};
  return q;
}

std::vector<Op> quantize_x_ops(const ProjectionProblem& p, const QuantizedX& out, const BindingLimits& limits) {
  const Kernel* k = find_kernel("quantize_x");
  require(k != nullptr,
          "kernel quantize_x was not compiled in (integer-dot kernels need glslang >= 14 with "
          "GL_EXT_integer_dot_product; see the configure output)");
  require(p.ncols > 0 && p.cols > 0 && p.cols % kQuantizedXBlock == 0, "cols must be a positive multiple of 32");
  require(p.x_stride >= p.cols, "x_stride must be >= cols");
  require(out.cols == p.cols && out.ncols >= p.ncols, "the quantized-x storage holds other cols or fewer columns");
  require(out.quants.offset % 16 == 0 && out.scales.offset % 8 == 0,
          "the quants must start on 16 bytes and the scales on 8");
  const AlignedWindow x =
      aligned_window(p.x, 0, (uint64_t(p.ncols - 1) * p.x_stride + p.cols) * 4, limits);
  const uint64_t blocks = uint64_t(p.cols / kQuantizedXBlock) * p.ncols;
  const BufferRef quants = out.quants.slice(0, uint64_t(p.cols) * p.ncols).write();
  const BufferRef scales = out.scales.slice(0, blocks * 8).write();
  Op op;
  op.kernel = k;
  op.bindings = {x.view.read(), quants, scales};
  op.push = PushConstants::of(QuantizeXPush{p.cols, p.ncols, p.x_stride, x.first_float});
  constexpr uint32_t kWorkgroup = 256;  // quantize_x.comp's local_size_x, one activation each
  op.groups = {ceil_div(p.cols, kWorkgroup), p.ncols, 1};
  op.label = "quantize_x";
  return {op};
}

}  // namespace pb
