// The whole MoE FFN of one layer as an op sequence, each op tagged with its phase, the shared
// expert first (the engine's order):
//   shared_expert  gate/up DMMVs, glu, down DMMV; with a scalar gate: its DMMV (one row),
//               sigmoid_mul broadcast over the column, add in place; without: down
//               accumulates into x
//   moe_router  router DMMV, logits [C][E]
//   moe_topk    moe_topk, moe_group (routes and the work list)
//   moe_gate_up expert DMMVs over the selected experts (gate, up), [C*K][F]
//   moe_swiglu  glu over the C*K assignment columns
//   moe_down    expert DMMV (down), [C*K][hidden]
//   moe_acc     x += weighted sum of each token's K outputs
// The dense projections use the DMMV (a caller that wants the matmul for prefill composes the
// pieces itself). Layer and token are left for the caller's emitter.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/ops/binding_limits.h"
#include "engine/ops/moe_routing_ops.h"
#include "engine/ops/num_cols.h"
#include "engine/quant/weight_format.h"
#include "harness/op.h"

namespace pb {

struct MoeWeightView {
  WeightFormat format = WeightFormat::F32;
  TensorView view;
};

// One layer's MoE weights on the device, in GGUF's layouts.
struct MoeBlockWeights {
  MoeWeightView router;           // [E][hidden] (ffn_gate_inp)
  MoeWeightView gate_exps;        // [E][F][hidden]
  MoeWeightView up_exps;          // [E][F][hidden]
  MoeWeightView down_exps;        // [E][hidden][F]
  MoeWeightView shared_gate;      // [Fs][hidden]; unused without a shared expert
  MoeWeightView shared_up;        // [Fs][hidden]
  MoeWeightView shared_down;      // [hidden][Fs]
  MoeWeightView shared_gate_inp;  // [1][hidden]; no buffer = the shared expert is not gated
};

// Working buffers for up to C tokens; every view starts at a storage-buffer offset the device
// accepts, strides are floats and multiples of 4.
struct MoeBlockScratch {
  TensorView logits;         // [C][E] at logits_stride
  TensorView gate, up, act;  // [C*K][F] at ffn_stride, indexed by assignment
  TensorView out;            // [C*K][hidden] at out_stride: each assignment's down output
  TensorView shared_gate, shared_up, shared_act;  // [C][Fs] at shared_stride
  TensorView shared_out;     // [C][hidden] at out_stride
  TensorView shared_scalar;  // [C] floats: the shared expert's gate logits
  MoeRouting routing;
  uint32_t logits_stride = 0;
  uint32_t ffn_stride = 0;
  uint32_t out_stride = 0;
  uint32_t shared_stride = 0;
};

// x[c] += MoE(xn[c]) for c < ncols (ref::moe_block is its reference).
struct MoeBlockProblem {
  MoeShape shape;
  uint32_t hidden = 0;
  uint32_t ncols = 1;      // C: tokens of the chunk
  TensorView xn;           // [C][hidden] at xn_stride: the FFN-normed input
  TensorView x;            // [C][hidden] at x_stride: the residual stream, read and written
  uint32_t xn_stride = 0;  // floats, a multiple of 4
  uint32_t x_stride = 0;   // floats
};

std::vector<Op> moe_block_ops(const MoeBlockProblem& problem, const MoeBlockWeights& weights,
                              const MoeBlockScratch& scratch, NumColsMode mode,
                              const BindingLimits& limits);

}  // namespace pb
