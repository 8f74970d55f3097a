// Whether two views share bytes: the check op builders make where a kernel's output must not
// alias an input it still reads after writing (no in-place variant exists for it).
#pragma once

#include "engine/ops/tensor_view.h"

namespace pb {

inline bool views_overlap(const TensorView& a, const TensorView& b) {
  return a.buffer == b.buffer && a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
}

}  // namespace pb
