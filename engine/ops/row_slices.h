// Row slicing for weights larger than one binding: op builders bind each slice of rows on
// its own (at most maxStorageBufferRange bytes, at an aligned offset).
#pragma once

#include <cstdint>
#include <numeric>

#include "engine/ops/binding_limits.h"
#include "harness/errors.h"

namespace pb {

// Rows per slice so that a slice's bytes fit the binding range, every slice's offset (a
// multiple of the slice's bytes) stays a multiple of the offset alignment, and every slice
// starts on a multiple of `row_multiple` rows (device_rows_multiple: Q6_K's groups of 8).
inline uint32_t rows_per_slice(uint64_t row_bytes, uint32_t rows, const BindingLimits& limits,
                               uint32_t row_multiple = 1) {
  if (row_bytes * rows <= limits.max_range) return rows;
  const uint64_t step = std::lcm<uint64_t>(limits.offset_alignment / std::gcd(row_bytes, limits.offset_alignment),
                                           row_multiple);
  uint64_t fit = limits.max_range / row_bytes;
  fit -= fit % step;
  if (fit == 0) throw UsageError("a single weight row exceeds the device's maxStorageBufferRange");
  return static_cast<uint32_t>(fit);
}

}  // namespace pb
