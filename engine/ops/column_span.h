// The bytes an op over activation columns touches: column c of a tensor holds n elements from
// element c * stride of its view. The element-wise op builders bind exactly this span, from
// the view's start, so the hazard ledger sees what an op really reads and writes rather than
// a whole activation buffer.
#pragma once

#include <cstdint>
#include <string>

#include "engine/ops/tensor_view.h"
#include "harness/errors.h"

namespace pb {

// Bytes from the start of column 0 to the end of column ncols - 1.
inline uint64_t column_span_bytes(uint32_t ncols, uint32_t stride, uint32_t n,
                                  uint32_t element_bytes = 4) {
  return (uint64_t(ncols - 1) * stride + n) * element_bytes;
}

// The leading part of `view` that `ncols` columns of n elements occupy. Throws UsageError
// naming `what` when the view is missing or too small, or columns would overlap.
inline TensorView column_span(const TensorView& view, uint32_t ncols, uint32_t stride, uint32_t n,
                              const std::string& what, uint32_t element_bytes = 4) {
  if (!view.buffer) throw UsageError(what + ": no buffer");
  if (ncols == 0 || n == 0) throw UsageError(what + ": zero columns or elements");
  if (ncols > 1 && stride < n) {
    throw UsageError(what + ": stride " + std::to_string(stride) + " is below the " +
                     std::to_string(n) + " elements of a column");
  }
  const uint64_t bytes = column_span_bytes(ncols, stride, n, element_bytes);
  if (bytes > view.bytes) {
    throw UsageError(what + ": " + std::to_string(ncols) + " columns need " + std::to_string(bytes) +
                     " bytes; the view has " + std::to_string(view.bytes));
  }
  return view.slice(0, bytes);
}

}  // namespace pb
