// Op builder for the experts' integer-dot DMMV (kernels/intdot/moe_dmmv_intdot_<fmt>.comp): the
// expert DMMV of moe_dmmv_op.h on activations quantized to int8 (quantize_x_op.h), with the
// dense integer-dot kernel's chunks and loop (dmmv_intdot_op.h). Q4_K, Q6_K and Q8_0.
//
// Result: y[a][row] = sum_k W[e(a)][row][k] xhat[input(a)][k], xhat the dequantized
// activations; against the float expert DMMV it differs as the dense integer-dot DMMV does
// from the float one (dmmv_intdot_op.h). tests/engine/kernels/moe_dmmv_intdot_test.cpp holds it
// to the reference on the activations the quantization stands for.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/ops/binding_limits.h"
#include "engine/ops/dmmv_intdot_op.h"
#include "engine/ops/moe_dmmv_op.h"
#include "engine/ops/moe_routing_ops.h"
#include "engine/ops/quantize_x_op.h"
#include "harness/device_info.h"
#include "harness/op.h"

namespace pb {

// Mirrors the MOE_DMMV push-constant block of kernels/include/dmmv_intdot_common.glsl.
struct MoeIntdotPush {
  uint32_t rows;          // rows of one expert's matrix
  uint32_t cols;          // input length
  uint32_t top_k;         // K: assignment a belongs to token a / K
  uint32_t y_stride;      // floats between y columns
  uint32_t y_offset;      // floats from the y binding's start to column 0
  uint32_t xq_offset;     // uvec4s from the quants binding's start to column 0
  uint32_t xs_offset;     // vec2s from the scales binding's start to column 0
  uint32_t expert_first;  // expert held first by this op's weight binding
  uint32_t expert_count;  // experts in that binding
};

// "moe_dmmv_intdot_q4_k", "moe_dmmv_intdot_q6_k", "moe_dmmv_intdot_q8_0"; null for the others.
const char* moe_dmmv_intdot_kernel_name(WeightFormat format);

// True when `format` has an expert integer-dot kernel, it was compiled in, and the dense
// integer-dot path runs here (dmmv_intdot_supported: quantize_x and shaderIntegerDotProduct).
bool moe_dmmv_intdot_supported(const DeviceInfo& info, WeightFormat format);

// Assignments per pass, at every chunk size. A pass computes all NUM_COLS of its columns
// whether or not the item has that many assignments (the rest repeat its first), and an expert
// serves C * K / E of a chunk's assignments on average (2 at 32 tokens of qwen3-30b-a3b, 1 of
// qwen35-35b-a3b), so wider passes mostly compute copies. On an H200 at qwen3-30b-a3b's Q4_K
// experts, gate at 32 tokens took 53.6 us in passes of 1 and 201 us in passes of 8; at 128
// tokens passes of 2 were at most 4% faster than passes of 1 (docs/GPU_FIGURES.md). tuning.num_cols
// overrides it (the benchmarks' sweep).
inline constexpr uint32_t kMoeIntdotNumCols = 1;

// The workgroup shape the engine takes for `tokens` tokens: in decode (one token) at one column
// the shapes measured for experts there (see the source), in a chunk at one column 32 threads of
// 4 rows (the sweep's fastest, or within 7% of it, for every format and role at 32 and 64
// tokens), else the dense kernel's default for that many columns
// (default_dmmv_intdot_tuning); always in the format's first chunk (Q4_K 64 weights, Q8_0 16,
// Q6_K its one), the one the expert kernels are built with.
DmmvIntdotTuning moe_dmmv_intdot_tuning(WeightFormat format, uint32_t num_cols, uint32_t cols, uint32_t tokens);

// `threads` invocations in row teams of `lanes`, `rows` rows a team (DmmvIntdotTuning::lanes).
DmmvIntdotTuning row_teams(uint32_t threads, uint32_t rows, uint32_t unroll, uint32_t lanes);

// The row-team width (DmmvIntdotTuning::lanes) a requested shape runs with, `engine` the
// engine's shape for the problem: the request's lanes, else one team of its threads where it
// names threads, else the engine's (one team of its threads where that has none).
uint32_t moe_intdot_lanes(const DmmvIntdotTuning& requested, const DmmvIntdotTuning& engine, uint32_t threads);

// The ops computing `problem` from its input columns quantized into `x` (problem.x and
// x_stride are not read): one op per expert slice, as moe_dmmv_ops, each dispatching
// ceil(rows / (tuning.rows x row teams)) row blocks x min(E, C*K) items. `tuning` zeros take
// moe_dmmv_intdot_tuning. Throws UsageError for a format without the kernel, a kernel not
// compiled in, an `x` of other cols, fewer columns than the problem reads or a deferred RMS,
// a tuning the kernel cannot run (chunk other than the format's first, passes other than 1,
// 2, 4 or 8 assignments, lanes not a power of two up to threads), or what check_moe_problem
// rejects.
std::vector<Op> moe_dmmv_intdot_ops(const MoeDmmvProblem& problem, const QuantizedX& x, const MoeRouting& routing,
                                    const BindingLimits& limits, const DmmvIntdotTuning& tuning = {});

// The experts' gate and up of one decode token with its routing and the SwiGLU, act written in
// int8 (glu_placement: producer; kernels/intdot/moe_dmmv_intdot_<fmt>_glu.comp): one op where
// moe_topk_group_op, moe_dmmv_intdot_ops twice and glu_quantize took four. It ranks the token's
// router `logits` (E floats) itself and writes `routing`'s routes and work list as
// moe_topk_group_op would, for down and the accumulation. `gate` is the gate projection's
// problem (input Token, one token, rows F a multiple of 32; its x and y are not read; `x` may
// be a deferred norm's, x.rms set, whose division the op applies to gate and up); `gate_up`
// holds the gate experts and, right after them, the up experts of the same format and shape, in
// one binding. glu.out receives act, a column of F per route (K columns). Throws UsageError
// naming what does not hold.
Op moe_dmmv_intdot_glu_op(const MoeDmmvProblem& gate, const TensorView& gate_up, const QuantizedX& x,
                          const TensorView& logits, const MoeRouting& routing, const BindingLimits& limits,
                          const GluEpilogue& glu);

// "moe_dmmv_intdot_q4_k_glu", ..._q6_k_glu, ..._q8_0_glu; null for the other formats.
const char* moe_dmmv_intdot_glu_kernel_name(WeightFormat format);

}  // namespace pb
