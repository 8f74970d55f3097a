// Op builder for a Gated DeltaNet decode step's conv, recurrence and output norm in one
// dispatch (kernels/intdot/ssm_conv_delta_gnorm.comp): ssm_conv_delta_op's work, then each value
// head's last workgroup to finish writes what ssm_gnorm_quantize_op would, the gated norm's
// int8 blocks and scales for the output projection. The gated floats (the norm's y) are not
// written. One dispatch and one barrier less than ssm_conv_delta_op then ssm_gnorm_quantize_op.
#pragma once

#include <string>

#include "engine/ops/quantize_x_op.h"
#include "engine/ops/ssm_delta_op.h"
#include "engine/ops/ssm_gnorm_op.h"

namespace pb {

// The recurrence's push constants, then the norm's eps (the kernel's layout).
struct SsmConvDeltaGnormPush {
  SsmDeltaPush delta;
  float gnorm_eps;
};

// Why `delta` with `gnorm` after it cannot be one dispatch; empty where it can: one token, the
// norm reading the recurrence's o (same view) over the shape's heads, d_v a multiple of 32 and
// at most the recurrence's workgroup (tuning), which is a multiple of 32, and the kernel
// compiled in.
std::string ssm_conv_delta_gnorm_refusal(const SsmDeltaProblem& delta, const SsmGnormProblem& gnorm,
                                         const SsmDeltaTuning& tuning = {});

// `head_arrivals`: value_heads uint32 counters, zero before; the kernel leaves them zero. `out`
// holds one column of value_heads x d_v. Throws UsageError with the refusal, or as
// ssm_conv_delta_op and quantize_x_in do.
Op ssm_conv_delta_gnorm_op(const SsmDeltaProblem& delta, const SsmConvInput& conv, const SsmGnormProblem& gnorm,
                           const QuantizedX& out, const TensorView& head_arrivals, const SsmDeltaTuning& tuning = {});

}  // namespace pb
