// Op builder for the dequantizing matrix-vector kernels (kernels/dmmv_*.comp).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/ops/binding_limits.h"
#include "engine/ops/num_cols.h"
#include "engine/ops/projection.h"
#include "harness/op.h"

namespace pb {

// How the spec build walks the columns of a slot (dmmv_body.glsl's FOR_EACH_COLUMN): unrolled,
// the accumulators are indexed by constants and can live in registers; rolled, the code stays
// one column long and the driver may keep them in memory. The shared build is always rolled.
enum class ColumnLoop : uint32_t { Default, Unrolled, Rolled };

struct DmmvTuning {
  uint32_t threads = 0;  // workgroup size; 0 = the default for the format and column count
  uint32_t rows = 0;     // rows per workgroup; 0 = the default for the format and column count
  uint32_t unroll = 0;   // slots per thread per loop step; 0 = the default (as above)
  ColumnLoop columns = ColumnLoop::Default;
};

const char* column_loop_name(ColumnLoop loop);  // "unrolled", "rolled" ("default")

// The workgroup shape a format's spec DMMV runs with at `ncols` columns (the pipeline's NUM_COLS),
// from the dmmv_tuning benchmarks (phasebench-kernels) on an NVIDIA H200 (dmmv_op.cpp says
// which). Other devices: run those benchmarks and pass a DmmvTuning.
DmmvTuning default_dmmv_tuning(WeightFormat format, uint32_t ncols);

// The shape of the shared builds (shared:32, shared:64), whatever the column count.
DmmvTuning shared_dmmv_tuning(WeightFormat format);

struct DmmvPush {
  uint32_t rows;      // rows of this dispatch's weight slice
  uint32_t cols;
  uint32_t ncols;     // active columns
  uint32_t x_stride;  // floats
  uint32_t y_stride;  // floats
  uint32_t row_base;  // y row of the slice's first row
  uint32_t x_offset;  // floats from the x binding's start to column 0
  uint32_t y_offset;  // floats from the y binding's start to column 0
};

// The ops computing the problem: one per column piece (spec cuts counts into powers of two,
// shared into pieces of at most max_cols) and per row slice (weights larger than the device's
// maximum binding range are split by rows).
std::vector<Op> dmmv_ops(const ProjectionProblem& problem, NumColsMode mode, const BindingLimits& limits,
                         const DmmvTuning& tuning = {});

// The kernel name for a format: "dmmv_q4_k", ...
const char* dmmv_kernel_name(WeightFormat format);

}  // namespace pb
