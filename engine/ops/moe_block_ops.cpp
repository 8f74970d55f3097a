#include "engine/ops/moe_block_ops.h"

#include "engine/ops/add_op.h"
#include "engine/ops/dmmv_op.h"
#include "engine/ops/glu_op.h"
#include "engine/ops/moe_acc_op.h"
#include "engine/ops/moe_dmmv_op.h"
#include "engine/ops/sigmoid_mul_op.h"

namespace pb {
namespace {

// Builds one block's ops, tagging each with its phase and label.
class BlockBuilder {
 public:
  BlockBuilder(const MoeBlockProblem& p, const MoeRouting& routing, NumColsMode mode,
               const BindingLimits& limits)
      : p_(p), routing_(routing), mode_(mode), limits_(limits) {}

  void add(std::vector<Op> ops, Phase phase, const char* label) {
    for (Op& op : ops) {
      op.phase = phase;
      op.label = label;
      ops_.push_back(std::move(op));
    }
  }
  void add(Op op, Phase phase, const char* label) { add(std::vector<Op>{std::move(op)}, phase, label); }

  // y (+)= W x over the chunk's C token columns.
  std::vector<Op> dense(const MoeWeightView& w, const TensorView& x, uint32_t x_stride,
                        const TensorView& y, uint32_t y_stride, uint32_t rows, uint32_t cols,
                        bool accumulate = false) const {
    return dmmv_ops(ProjectionProblem{w.format, w.view, x, y, rows, cols, p_.ncols, x_stride, y_stride,
                                      accumulate},
                    mode_, limits_);
  }

  // The selected experts' W x into the C*K assignment columns of y.
  std::vector<Op> experts(const MoeWeightView& w, const TensorView& x, uint32_t x_stride,
                          const TensorView& y, uint32_t y_stride, uint32_t rows, uint32_t cols,
                          MoeInput input) const {
    return moe_dmmv_ops(MoeDmmvProblem{w.format, w.view, x, y, p_.shape, rows, cols, p_.ncols,
                                       x_stride, y_stride, input},
                        routing_, mode_, limits_);
  }

  std::vector<Op> take() { return std::move(ops_); }

 private:
  const MoeBlockProblem& p_;
  const MoeRouting& routing_;
  NumColsMode mode_;
  BindingLimits limits_;
  std::vector<Op> ops_;
};

}  // namespace

std::vector<Op> moe_block_ops(const MoeBlockProblem& p, const MoeBlockWeights& w,
                              const MoeBlockScratch& s, NumColsMode mode, const BindingLimits& limits) {
  const MoeShape& shape = p.shape;
  const uint32_t E = shape.n_experts, F = shape.expert_ffn, H = p.hidden, C = p.ncols;
  const uint32_t fs = s.ffn_stride;
  BlockBuilder b(p, s.routing, mode, limits);

  // The shared expert first, then the routed experts: the engine's order of adds into x
  // (engine/forward/ffn_block.cpp) and the reference's (moe_ref.cpp).
  if (shape.has_shared_expert()) {
    const uint32_t Fs = shape.shared_expert_ffn, ss = s.shared_stride;
    const Phase se = Phase::SharedExpert;
    b.add(b.dense(w.shared_gate, p.xn, p.xn_stride, s.shared_gate, ss, Fs, H), se, "shared_gate");
    b.add(b.dense(w.shared_up, p.xn, p.xn_stride, s.shared_up, ss, Fs, H), se, "shared_up");
    b.add(glu_op(GluProblem{s.shared_gate, s.shared_up, s.shared_act, Fs, C, ss, ss, ss,
                            GluActivation::Silu}),
          se, "shared_swiglu");
    if (w.shared_gate_inp.view.buffer == nullptr) {  // ungated: down adds straight into the residual
      b.add(b.dense(w.shared_down, s.shared_act, ss, p.x, p.x_stride, H, Fs, true), se, "shared_down");
    } else {
      b.add(b.dense(w.shared_down, s.shared_act, ss, s.shared_out, s.out_stride, H, Fs), se, "shared_down");
      b.add(b.dense(w.shared_gate_inp, p.xn, p.xn_stride, s.shared_scalar, 1, 1, H), se, "shared_gate_inp");
      b.add(sigmoid_mul_op(SigmoidMulProblem{s.shared_scalar, s.shared_out, H, C, 1, s.out_stride, true}),
            se, "shared_sigmoid_mul");
      b.add(add_in_place_op(AddInPlaceProblem{p.x, s.shared_out, H, C, p.x_stride, s.out_stride}), se,
            "shared_add");
    }
  }

  b.add(b.dense(w.router, p.xn, p.xn_stride, s.logits, s.logits_stride, E, H), Phase::MoeRouter,
        "moe_router");
  b.add(moe_topk_op(shape, s.logits, s.logits_stride, C, s.routing), Phase::MoeTopk, "moe_topk");
  b.add(moe_group_op(shape, C, s.routing), Phase::MoeTopk, "moe_group");
  b.add(b.experts(w.gate_exps, p.xn, p.xn_stride, s.gate, fs, F, H, MoeInput::Token), Phase::MoeGateUp,
        "moe_gate");
  b.add(b.experts(w.up_exps, p.xn, p.xn_stride, s.up, fs, F, H, MoeInput::Token), Phase::MoeGateUp,
        "moe_up");
  b.add(glu_op(GluProblem{s.gate, s.up, s.act, F, C * shape.top_k, fs, fs, fs, GluActivation::Silu}),
        Phase::MoeSwiglu, "moe_swiglu");
  b.add(b.experts(w.down_exps, s.act, fs, s.out, s.out_stride, H, F, MoeInput::Assignment),
        Phase::MoeDown, "moe_down");
  b.add(moe_acc_op(MoeAccProblem{s.out, p.x, shape, H, C, s.out_stride, p.x_stride}, s.routing),
        Phase::MoeAcc, "moe_acc");
  return b.take();
}

}  // namespace pb
