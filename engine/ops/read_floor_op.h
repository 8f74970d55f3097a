// Op builder for the read floor (kernels/read_floor.comp): a dispatch that only reads a range
// of memory, in a chosen grid, so benchmarks can set a kernel's time against what reading its
// bytes alone costs at that size.
#pragma once

#include <cstdint>

#include "engine/ops/tensor_view.h"
#include "harness/op.h"

namespace pb {

// The grid: `threads` invocations per workgroup, each loading `loads` 16-byte words before it
// uses any; workgroup g reads the g-th run of threads * loads words.
struct ReadFloorShape {
  uint32_t threads = 256;
  uint32_t loads = 8;
};

// Mirrors the push-constant block of kernels/read_floor.comp.
struct ReadFloorPush {
  uint32_t count;   // 16-byte words to read
  uint32_t groups;  // workgroups reading them
};

// Workgroups that read `bytes` in `shape` (the last one reads what is left).
uint32_t read_floor_groups(uint64_t bytes, const ReadFloorShape& shape);

// Reads all of `src` (a whole number of 16-byte words) and writes the XOR of workgroup g's
// words to word g of `folded`, which must hold read_floor_groups words. Throws UsageError for
// an empty or ragged `src`, a `folded` too small, a workgroup of other than 8 to 1024
// invocations in whole subgroups of 8, or loads outside 1 to 64.
Op read_floor_op(const TensorView& src, const TensorView& folded, const ReadFloorShape& shape);

}  // namespace pb
