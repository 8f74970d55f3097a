#include "engine/ops/fill_zero_op.h"

#include <algorithm>

#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {

Op fill_zero_op(const TensorView& view) {
  if (view.bytes == 0 || view.bytes % 4 != 0) throw UsageError("fill_zero: the range must be whole words");
  Op op;
  op.kernel = &kernel("fill_zero");
  op.bindings = {view.write()};
  const auto words = static_cast<uint32_t>(view.bytes / 4);
  op.push = PushConstants::of(FillZeroPush{words});
  op.groups = {std::clamp<uint32_t>(ceil_div(words, 64), 1, 1024), 1, 1};
  op.label = "fill_zero";
  return op;
}

}  // namespace pb
