// Op builder for the decode token embedding that also writes the int8 input of the RMSNorm
// after it (kernels/intdot/embed_norm.comp; norm_placement: producer), as the residual
// projections do for every later norm (dmmv_intdot_norm_op).
#pragma once

#include "engine/ops/binding_limits.h"
#include "engine/ops/dmmv_intdot_op.h"
#include "engine/ops/embed_op.h"
#include "harness/op.h"

namespace pb {

// True when the kernel was compiled in (it needs the integer-dot build, as its readers do).
bool has_embed_norm_kernel();

// `embed` (one column) as embed_op binds it, and also the quants and scales of x * norm.weight
// and the block squares of x into norm.out, which the projections after the norm read as a
// deferred norm (x.rms). Throws UsageError naming what does not hold: one column, hidden a
// multiple of 32, norm.out one column of hidden with block squares, norm.weight hidden floats.
Op embed_norm_op(const EmbedProblem& embed, const NormEpilogue& norm, const BindingLimits& limits);

}  // namespace pb
