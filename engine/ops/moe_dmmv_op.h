// Op builder for the expert DMMVs (kernels/moe_dmmv_*.comp): the routed experts' gate, up and
// down projections, reading the weights of selected experts only (the work list built by
// moe_group_op, engine/ops/moe_routing_ops.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/ops/binding_limits.h"
#include "engine/ops/moe_routing_ops.h"
#include "engine/ops/num_cols.h"
#include "engine/quant/weight_format.h"
#include "harness/device_info.h"
#include "harness/op.h"

namespace pb {

// Which activation column feeds assignment a = t*K + j (the kernel's spec INPUT_PER_ASSIGNMENT).
enum class MoeInput : int32_t {
  Token = 0,       // x column t = a / K: gate and up read the token's normed hidden state
  Assignment = 1,  // x column a: down reads the (token, choice) pair's activated FFN state
};

// y[a][row] = sum_k W[e(a)][row][k] * x[input(a)][k] for each of the C*K assignments a of
// tokens [0, ncols), e(a) = route_e[a]; every y column a < C*K is written.
struct MoeDmmvProblem {
  WeightFormat format = WeightFormat::Q4_K;
  TensorView weights;     // [E][rows][cols] in `format`: the experts stacked
  TensorView x;           // column c at float c * x_stride (C columns, or C*K for Assignment)
  TensorView y;           // column a at float a * y_stride, C*K columns
  MoeShape shape;         // E and K (F is in rows or cols)
  uint32_t rows = 0;      // rows of one expert's matrix (F for gate/up, hidden for down)
  uint32_t cols = 0;      // its input length, a multiple of the format's block size
  uint32_t ncols = 1;     // C: tokens of the chunk
  uint32_t x_stride = 0;  // floats between x columns, a multiple of 4
  uint32_t y_stride = 0;  // floats between y columns
  MoeInput input = MoeInput::Token;
};

struct MoeDmmvTuning {
  uint32_t threads = 64;   // workgroup size
  uint32_t rows = 2;       // rows per workgroup
  uint32_t num_cols = 0;   // assignments per pass (spec NUM_COLS); 0: chosen from the mode
};

// The workgroup shape the engine takes for `format` at `ncols` tokens: Q4_K in decode as one
// 32-wide subgroup of 2 rows where the device's subgroups are 32 wide (on an H200 at
// qwen3-30b-a3b's shape, 12.2 against 16.1 us for gate and up, 13.9 against 19.4 for down:
// docs/GPU_FIGURES.md); the default above elsewhere, where the moe_dmmv_tuning benchmarks
// found no shape 5% faster.
MoeDmmvTuning moe_dmmv_tuning(const DeviceInfo& info, WeightFormat format, uint32_t ncols);

struct MoeDmmvPush {
  uint32_t rows;          // rows of one expert's matrix
  uint32_t cols;          // input length
  uint32_t top_k;         // K: assignment a belongs to token a / K
  uint32_t x_stride;      // floats between x columns
  uint32_t y_stride;      // floats between y columns
  uint32_t x_offset;      // floats from the x binding's start to column 0
  uint32_t y_offset;      // floats from the y binding's start to column 0
  uint32_t expert_first;  // expert held first by this op's weight binding
  uint32_t expert_count;  // experts in that binding
};

// Assignments per pass for a chunk of C tokens: with spec, the smallest spec column count
// covering min(C, 8) (an expert serves at most C assignments and typically C*K/E, 4 for a
// 64-token chunk at 8 of 128, so wider accumulators would mostly idle; busier experts take
// more passes); with shared, the mode's max_cols (the register cost the axis measures).
uint32_t moe_num_cols(NumColsMode mode, uint32_t ncols);

// One op per expert slice: the stacked weights are split by whole experts where they exceed
// the device's maximum binding range, every slice dispatching the full static grid
// (ceil(rows / tuning.rows) row blocks × min(E, C*K) items). Throws UsageError on bad
// strides, a view too small, or one expert's matrix larger than the binding range.
std::vector<Op> moe_dmmv_ops(const MoeDmmvProblem& problem, const MoeRouting& routing,
                             NumColsMode mode, const BindingLimits& limits,
                             const MoeDmmvTuning& tuning = {});

// What moe_dmmv_ops and moe_matmul_ops check of a problem, in `op`'s name: the format's block
// and device row groups, the strides, x's alignment and the weights' size. Returns the bytes
// of one expert's matrix; throws UsageError naming what does not hold.
uint64_t check_moe_problem(const MoeDmmvProblem& problem, const char* op);

// The ops of an expert projection's kernel (moe_dmmv_ops, moe_matmul_ops): `prototype` (its
// kernel, specialization, workgroups and label) once per slice of p's stacked experts (split
// where they exceed the binding range, each slice starting aligned), each binding the slice,
// x's and y's windows and the work list, with the push constants both kernels read
// (MoeDmmvPush) and p's phase. `expert_bytes` is check_moe_problem's. Throws UsageError naming
// the label for a work list too small or one expert beyond the binding range.
std::vector<Op> moe_slice_ops(const MoeDmmvProblem& problem, const MoeRouting& routing, const BindingLimits& limits,
                              uint64_t expert_bytes, const Op& prototype);

// The push constants of one expert slice, from its first expert and expert count.
using MoeSlicePush = std::function<PushConstants(uint32_t expert_first, uint32_t expert_count)>;

// What moe_slice_ops does for any expert kernel (the integer-dot one too,
// moe_dmmv_intdot_op.h): `prototype` once per slice of p's stacked experts, each binding the
// slice, then `inputs`, then `y`, then the work list, with push(first expert, count) and p's
// phase. Throws as moe_slice_ops.
std::vector<Op> moe_expert_slice_ops(const MoeDmmvProblem& problem, const MoeRouting& routing,
                                     const BindingLimits& limits, uint64_t expert_bytes, const Op& prototype,
                                     const std::vector<BufferRef>& inputs, const BufferRef& y,
                                     const MoeSlicePush& push);

// The binding window of p's C*K output columns (`what` names it in an error).
AlignedWindow moe_output_window(const MoeDmmvProblem& problem, const BindingLimits& limits, const std::string& what);

// The kernel name for a format: "moe_dmmv_q4_k", ...
const char* moe_dmmv_kernel_name(WeightFormat format);

}  // namespace pb
