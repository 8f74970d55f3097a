#include "engine/ops/embed_op.h"

#include <string>

#include "engine/ops/column_span.h"
#include "engine/quant/device_layout.h"
#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {
namespace {

constexpr uint32_t kWorkgroup = 256;  // the kernel's local_size_x

}  // namespace

Op embed_op(const EmbedProblem& p, const BindingLimits& limits) {
  const uint64_t table_bytes = tensor_bytes(p.format, p.vocab, p.hidden);  // throws on misfit
  require_device_cols(p.format, p.hidden, "embed");
  if (table_bytes > (uint64_t(1) << 32) || table_bytes > limits.max_range) {
    throw UsageError("embed: a table of " + std::to_string(table_bytes) +
                     " bytes exceeds 4 GiB or the device's maxStorageBufferRange");
  }
  if (!p.table.buffer || p.table.bytes < table_bytes) {
    throw UsageError("embed: the table view is smaller than vocab x hidden in " +
                     std::string(format_name(p.format)));
  }
  const TensorView tokens = column_span(p.tokens, 1, p.pos0 + p.ncols, p.pos0 + p.ncols,
                                        "embed tokens");
  const AlignedWindow window =
      aligned_window(tokens, uint64_t(p.pos0) * 4, uint64_t(p.pos0 + p.ncols) * 4, limits);
  Op op;
  op.kernel = &kernel("embed");
  op.spec.set(0, static_cast<int32_t>(p.format));
  op.bindings = {p.table.slice(0, table_bytes).read(), window.view.read(),
                 column_span(p.x, p.ncols, p.x_stride, p.hidden, "embed x").write()};
  op.push = PushConstants::of(EmbedPush{p.hidden, p.vocab, window.first_float, p.x_stride, p.scale});
  op.groups = {ceil_div(p.hidden, kWorkgroup), p.ncols, 1};
  op.label = "embed";
  return op;
}

}  // namespace pb
