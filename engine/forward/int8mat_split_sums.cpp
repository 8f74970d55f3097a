#include "engine/forward/int8mat_split_sums.h"

#include <algorithm>

#include "engine/ops/dmmv_intdot_op.h"
#include "engine/quant/integer_dot.h"

namespace pb {

uint64_t int8mat_split_sums_bytes(const std::vector<TensorSpec>& tensors, const DeviceInfo& info, uint32_t max_cols) {
  const BindingLimits limits = BindingLimits::of(info);
  uint64_t bytes = 0;
  for (const TensorSpec& t : tensors) {
    const auto cols = static_cast<uint32_t>(t.cols);
    if (t.experts != 1 || t.rows < 2 || !has_integer_dot_path(t.format, cols)) continue;
    ProjectionProblem p;
    p.format = t.format;
    p.rows = p.y_stride = static_cast<uint32_t>(t.rows);
    p.cols = cols;
    p.ncols = max_cols;
    bytes = std::max(bytes, dmmv_int8mat_split_bytes(p, dmmv_intdot_choice(info, t.format, true), limits));
  }
  return bytes;
}

}  // namespace pb
