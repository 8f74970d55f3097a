// Op builder for the MoE weighted accumulation (kernels/moe_acc.comp): the routed experts'
// outputs, weighted by their route weights, added into the residual stream.
#pragma once

#include <cstdint>

#include "engine/ops/dmmv_intdot_op.h"
#include "engine/ops/moe_routing_ops.h"
#include "engine/ops/tensor_view.h"
#include "harness/op.h"

namespace pb {

struct MoeAccPush {
  uint32_t n;           // elements per column (hidden)
  uint32_t top_k;       // K: assignments per token
  uint32_t out_stride;  // floats between expert output columns
  uint32_t x_stride;    // floats between x columns
};

// x[c][i] += sum_j route_w[c*K + j] * out[c*K + j][i] for i < n, c < ncols.
struct MoeAccProblem {
  TensorView out;  // [C*K] columns of n floats at out_stride: the down projections
  TensorView x;    // [C] columns at x_stride, read and written
  MoeShape shape;  // K (and E for the routing checks)
  uint32_t n = 0;
  uint32_t ncols = 1;
  uint32_t out_stride = 0;
  uint32_t x_stride = 0;
};

// Binds route_w of `routing` for the chunk. Throws UsageError when a view is too small.
Op moe_acc_op(const MoeAccProblem& problem, const MoeRouting& routing);

// The accumulation of one decode token that also writes the RMSNorm after it as `norm` says
// (norm_placement: producer; kernels/intdot/moe_acc_norm.comp): x * weight in int8 blocks and
// each block's sum of squares, the norm's readers dividing by the RMS. Throws UsageError naming
// what does not hold (one column, n a multiple of 32, norm.out one column of n with its block
// squares, the kernel compiled in).
Op moe_acc_norm_op(const MoeAccProblem& problem, const MoeRouting& routing, const NormEpilogue& norm);

// True when moe_acc_norm was compiled in (it needs the integer-dot build).
bool has_moe_acc_norm_kernel();

}  // namespace pb
