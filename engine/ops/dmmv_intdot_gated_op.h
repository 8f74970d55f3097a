// Op builder for a projection whose output is gated by a sigmoid and added into y in its
// epilogue (kernels/intdot/dmmv_intdot_<fmt>_gated.comp): Qwen3.5's shared expert in decode,
// y += (W x) * sigmoid(g), one op where dmmv_intdot_ops, sigmoid_mul (one gate per token) and
// add_in_place took three, with sigmoid_mul's expression.
#pragma once

#include <string>

#include "engine/ops/dmmv_intdot_op.h"

namespace pb {

// "dmmv_intdot_q4_k_gated", ..._q8_0_gated, ..._q6_k_gated; null for the others.
const char* dmmv_intdot_gated_kernel_name(WeightFormat format);

// Why `p` cannot take the gated op on this build, or empty where it can: the kernel compiled in,
// one column, and y added into (p.accumulate).
std::string dmmv_intdot_gated_refusal(const ProjectionProblem& p);

// y += (W x) * sigmoid(gate[0]) for the one column of `p` (accumulate; x not a deferred norm),
// `gate` holding that column's gate float. One dispatch of the integer dot in the format's first
// chunk, in the engine's one-column shape. Throws UsageError naming what does not hold.
Op dmmv_intdot_gated_op(const ProjectionProblem& p, const QuantizedX& x, const TensorView& gate,
                        const BindingLimits& limits);

}  // namespace pb
