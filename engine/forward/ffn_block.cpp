// The FFN block of a layer: its norm, then a dense gated FFN (SwiGLU or GeGLU, through Gemma's
// post-norm where the model has one) or a mixture of experts: the router, the shared expert with
// its sigmoid gate, then top-k and the work list, the selected experts' gate/up, SwiGLU and down,
// and their weighted accumulation.
#include <algorithm>

#include "engine/forward/forward_context.h"
#include "engine/ops/add_op.h"
#include "engine/ops/dmmv_intdot_gated_op.h"
#include "engine/ops/glu_op.h"
#include "engine/ops/moe_acc_op.h"
#include "engine/ops/moe_dmmv_intdot_op.h"
#include "engine/ops/moe_dmmv_op.h"
#include "engine/ops/moe_matmul_op.h"
#include "engine/ops/moe_routing_ops.h"
#include "engine/ops/sigmoid_mul_op.h"
#include "engine/quant/integer_dot.h"
#include "kernels/registry.h"

namespace pb {
namespace {

GluProblem glu(const ForwardContext& f, const Columns2D& gate, const Columns2D& up, const Columns2D& out,
               uint32_t width, Columns cols) {
  return GluProblem{ForwardContext::columns(gate, width, cols), ForwardContext::columns(up, width, cols),
                    ForwardContext::columns(out, width, cols), width, cols.count, gate.stride, up.stride,
                    out.stride, f.config().ffn_activation};
}

// Gate and up: stored as one stack where the weights allow, so they project in one dispatch.
constexpr StackMember kGateUp[] = {{TensorRole::FfnGate, "ffn_gate", nullptr},
                                   {TensorRole::FfnUp, "ffn_up", "ffn_gate_up"}};
constexpr StackMember kSharedGateUp[] = {{TensorRole::SharedGate, "shared_gate", nullptr},
                                         {TensorRole::SharedUp, "shared_up", "shared_gate_up"}};
// A MoE's router and its shared expert's sigmoid gate (shared_gate_inp), which both read the FFN
// norm.
constexpr StackMember kRouterSharedGate[] = {{TensorRole::MoeRouter, "moe_router", nullptr},
                                             {TensorRole::SharedGateInp, "shared_gate_inp", "moe_router_shared_gate"}};

void emit_dense_ffn(Emitter& e, const ForwardContext& f, int32_t l, const Chunk& chunk, Columns rest) {
  const ModelConfig& c = f.config();
  e.phase(Phase::FfnGateUp);
  const std::vector<Columns2D> gate_up = f.act.gate_up(c.ffn_hidden);
  f.project_stack(e, kGateUp, l, f.act.xn, gate_up, rest, chunk);
  e.phase(Phase::FfnAct);
  const DeviceTensor& down = f.tensor(TensorRole::FfnDown, l);
  f.glu_for_projection(e, c.ffn_activation == GluActivation::Silu ? "swiglu" : "geglu",
                       glu(f, gate_up[0], gate_up[1], f.act.act, c.ffn_hidden, rest), rest, chunk, down);
  e.phase(Phase::FfnDown);
  if (c.post_norms) {
    f.project(e, "ffn_down", down, f.act.act, f.act.tmp, rest, false, chunk);
    f.post_norm_add(e, TensorRole::FfnPostNorm, l, rest);
  } else {
    f.project(e, "ffn_down", down, f.act.act, f.act.x, rest, true, chunk);
  }
}

// Whether the experts of `w` take int8 inputs over `cols` of the chunk (gate and up: its tokens;
// down: its assignments): where a dense projection of their format would (dmmv_activations int8,
// not a matmul prefill chunk), or in a matmul chunk where an expert serves few assignments
// (chunk_experts_int8.h), and the experts' integer-dot kernel runs here (Q4_K, Q6_K and Q8_0);
// else their float DMMV or matmul.
bool experts_int8(const ForwardContext& f, const DeviceTensor& w, const Chunk& chunk, Columns cols) {
  return f.projects_int8(w, chunk, cols) && moe_dmmv_intdot_supported(f.device, w.spec.format);
}

// Decode's expert routing, gate and up with the SwiGLU in one dispatch (glu_placement:
// producer), act written in int8 for down: where all three take int8 inputs, gate and up share a
// format and lie one after the other in the weights' storage, and the kernel runs here
// (fused_gate_up_applies). emit_fused_gate_up emits it (on the FFN norm's int8 form, deferred or
// not; it writes the routes and work list that moe_topk_group would) and remembers act's int8
// form (as `act`'s, for down to find); false, emitting nothing, where it does not apply.
bool fused_gate_up_applies(const ForwardContext& f, int32_t l, const Chunk& chunk, Columns tokens) {
  const MoeShape& m = f.config().moe;
  const DeviceTensor& gate = f.tensor(TensorRole::MoeGateExps, l);
  const DeviceTensor& up = f.tensor(TensorRole::MoeUpExps, l);
  const DeviceTensor& down = f.tensor(TensorRole::MoeDownExps, l);
  return f.options.glu_placement == Placement::Producer && !chunk.prefill && tokens.count == 1 &&
         experts_int8(f, gate, chunk, tokens) && experts_int8(f, up, chunk, tokens) &&
         experts_int8(f, down, chunk, Columns{0, m.top_k}) && up.spec.format == gate.spec.format &&
         up.storage == gate.storage && up.offset == gate.offset + gate.spec.bytes() && m.expert_ffn % 32 == 0 &&
         2 * gate.spec.bytes() <= f.limits.max_range &&
         find_kernel(moe_dmmv_intdot_glu_kernel_name(gate.spec.format)) != nullptr;
}

bool emit_fused_gate_up(Emitter& e, const ForwardContext& f, int32_t l, const Chunk& chunk, Columns tokens,
                        const MoeRouting& routing, const Columns2D& act) {
  if (!fused_gate_up_applies(f, l, chunk, tokens)) return false;
  const MoeShape& m = f.config().moe;
  const DeviceTensor& gate = f.tensor(TensorRole::MoeGateExps, l);
  const Columns assignments{0, m.top_k};
  const uint32_t hidden = f.config().hidden, n = m.expert_ffn;
  const MoeDmmvProblem p{gate.spec.format, gate.view(), ForwardContext::columns(f.act.xn, hidden, tokens),
                         ForwardContext::columns(f.act.e_gate, n, assignments), m, n, hidden, 1, f.act.xn.stride,
                         f.act.e_gate.stride, MoeInput::Token};
  const QuantizedX& x = f.quantized_input(
      e, ProjectionProblem{p.format, p.weights, p.x, p.y, n, hidden, 1, f.act.xn.stride, p.y_stride, false});
  const TensorView gate_up{gate.storage, gate.offset, 2 * gate.spec.bytes()};
  const QuantizedX out = quantized_x_in(f.act.experts_quantized_act(), n, m.top_k, f.limits);
  e(moe_dmmv_intdot_glu_op(p, gate_up, x, ForwardContext::columns(f.act.router, tokens), routing, f.limits,
                           GluEpilogue{f.config().ffn_activation, out}),
    "expert_routing_gate_up_swiglu");
  // act itself is never written: down takes the int8 form, found as act's.
  e.last_quantized = QuantizedInput{ForwardContext::columns(act, n, assignments), n, m.top_k, act.stride,
                                    e.ops().size() - 1, out};
  e.mark_unwritten(e.last_quantized->x, e.ops().size() - 1);
  return true;
}

// Experts for tokens `cols`; the routing buffers hold one piece of at most
// kMoeGroupMaxAssignments / K tokens at a time.
void emit_experts(Emitter& e, const ForwardContext& f, int32_t l, const Chunk& chunk, Columns cols) {
  const ModelConfig& c = f.config();
  const MoeShape& m = c.moe;
  const MoeRouting routing =
      moe_routing_in(TensorView::whole(f.act.routing), m, f.act.sizes().max_cols, f.act.sizes().binding_alignment);
  const uint32_t piece = std::min<uint32_t>(f.act.sizes().max_cols, kMoeGroupMaxAssignments / m.top_k);
  for (uint32_t first = cols.first; first < cols.first + cols.count; first += piece) {
    const Columns tokens{first, std::min(piece, cols.first + cols.count - first)};
    const Columns assignments{0, tokens.count * m.top_k};
    const auto emit_acc = [&](std::optional<MoeAccRecord::Down> down) {
      e.phase(Phase::MoeAcc);
      const MoeAccProblem acc{ForwardContext::columns(f.act.e_out, c.hidden, assignments),
                              ForwardContext::columns(f.act.x, tokens), m, c.hidden, tokens.count,
                              f.act.e_out.stride, f.act.x.stride};
      e(moe_acc_op(acc, routing), "moe_acc");
      // The norm after it may move into it (norm_placement: producer; defer_norm), with down.
      if (!chunk.prefill && tokens.count == 1) e.last_moe_acc = MoeAccRecord{acc, routing, e.ops().size() - 1, down};
    };
    // A prefill chunk through the matmul strategy takes the experts' tiled matmul on the matrix
    // units (where the device and the format have them), but on int8 inputs where an expert
    // serves few assignments (experts_int8); elsewhere, and in decode, the expert DMMV, on
    // int8 inputs where experts_int8 says (their quantization is the norm's or the SwiGLU's own
    // where those wrote it, else a quantize_x). The scalar form of the experts' matmul measured
    // slower than the DMMV on an H200 (docs/GPU_FIGURES.md), so the engine does not take it.
    // `int8` receives the problem and its quantized input where the int8 DMMV runs.
    auto experts = [&](TensorRole role, const Columns2D& x, Columns x_cols, const Columns2D& y, MoeInput input,
                       uint32_t rows, uint32_t in, std::optional<MoeAccRecord::Down>* int8 = nullptr) {
      const DeviceTensor& w = f.tensor(role, l);
      const MoeDmmvProblem p{w.spec.format, w.view(), ForwardContext::columns(x, in, x_cols),
                             ForwardContext::columns(y, rows, assignments), m, rows, in, tokens.count,
                             x.stride, y.stride, input};
      const bool int8_inputs = experts_int8(f, w, chunk, x_cols);
      if (f.options.prefill == PrefillStrategy::Matmul && tokens.count > 1 && !int8_inputs) {
        const MatmulChoice matmul = choose_moe_matmul(f.device, p.format, f.options.allow_coopmat);
        if (matmul.coopmat) return moe_matmul_ops(p, routing, f.limits, matmul);
      }
      if (int8_inputs) {
        const QuantizedX& q = f.quantized_input(
            e, ProjectionProblem{p.format, p.weights, p.x, p.y, rows, in, x_cols.count, x.stride, y.stride, false});
        if (int8 != nullptr) *int8 = MoeAccRecord::Down{p, q};
        return moe_dmmv_intdot_ops(p, q, routing, f.limits);
      }
      return moe_dmmv_ops(p, routing, f.options.num_cols, f.limits, moe_dmmv_tuning(f.device, p.format, tokens.count));
    };
    e.phase(Phase::MoeGateUp);
    if (emit_fused_gate_up(e, f, l, chunk, tokens, routing, f.act.e_act)) {  // it routes the token itself
      // Down on act's int8 form, remembered for the norm after the accumulation to move both
      // into one op (defer_norm).
      e.phase(Phase::MoeDown);
      std::optional<MoeAccRecord::Down> down;
      e(experts(TensorRole::MoeDownExps, f.act.e_act, assignments, f.act.e_out, MoeInput::Assignment, c.hidden,
                m.expert_ffn, &down),
        "expert_down");
      if (down) down->op_index = e.ops().size() - 1;
      emit_acc(down);
      continue;
    }
    e.phase(Phase::MoeTopk);
    if (tokens.count == 1) {  // decode: the routes and their work list in one dispatch
      e(moe_topk_group_op(m, ForwardContext::columns(f.act.router, tokens), routing), "moe_topk_group");
    } else if (moe_topk_chunk_group_fits(m, tokens.count)) {
      // A chunk's too: the last of its top-k workgroups to finish groups the routes.
      e(moe_topk_chunk_group_op(m, ForwardContext::columns(f.act.router, tokens), f.act.router.stride, tokens.count,
                                routing),
        "moe_topk_chunk_group");
    } else {
      e(moe_topk_op(m, ForwardContext::columns(f.act.router, tokens), f.act.router.stride, tokens.count, routing),
        "moe_topk");
      e(moe_group_op(m, tokens.count, routing), "moe_group");
    }

    e.phase(Phase::MoeGateUp);
    e(experts(TensorRole::MoeGateExps, f.act.xn, tokens, f.act.e_gate, MoeInput::Token, m.expert_ffn, c.hidden),
      "expert_gate");
    e(experts(TensorRole::MoeUpExps, f.act.xn, tokens, f.act.e_up, MoeInput::Token, m.expert_ffn, c.hidden),
      "expert_up");
    e.phase(Phase::MoeSwiglu);
    const GluProblem swiglu = glu(f, f.act.e_gate, f.act.e_up, f.act.e_act, m.expert_ffn, assignments);
    const DeviceTensor& down = f.tensor(TensorRole::MoeDownExps, l);
    if (experts_int8(f, down, chunk, assignments)) {  // it also writes the int8 form down reads
      f.glu_for_projection(e, "expert_swiglu", swiglu, assignments, chunk, down);
    } else {
      e(glu_op(swiglu), "expert_swiglu");
    }
    e.phase(Phase::MoeDown);
    e(experts(TensorRole::MoeDownExps, f.act.e_act, assignments, f.act.e_out, MoeInput::Assignment, c.hidden,
              m.expert_ffn),
      "expert_down");
    emit_acc(std::nullopt);
  }
}

// A shared expert: gate, up, SwiGLU and down, the output scaled by sigmoid(w . xn) (one scalar
// per token, shared_gate_inp, projected with the router before it) and added into x. In decode on
// int8 inputs down applies the sigmoid gate and adds into x in its epilogue
// (dmmv_intdot_gated_op): one dispatch where down, sigmoid_mul and add_in_place took three.
void emit_shared_expert(Emitter& e, const ForwardContext& f, int32_t l, const Chunk& chunk, Columns rest) {
  const ModelConfig& c = f.config();
  const uint32_t width = c.moe.shared_expert_ffn;
  e.phase(Phase::SharedExpert);
  const DeviceTensor& down = f.tensor(TensorRole::SharedDown, l);
  const ProjectionProblem down_into_x{down.spec.format,
                                      down.view(),
                                      ForwardContext::columns(f.act.act, width, rest),
                                      ForwardContext::columns(f.act.x, c.hidden, rest),
                                      static_cast<uint32_t>(down.spec.rows),
                                      static_cast<uint32_t>(down.spec.cols),
                                      rest.count,
                                      f.act.act.stride,
                                      f.act.x.stride,
                                      true};
  const bool gated_down =
      !chunk.prefill && f.projects_int8(down, chunk, rest) && dmmv_intdot_gated_refusal(down_into_x).empty();
  const std::vector<Columns2D> gate_up = f.act.gate_up(width);
  f.project_stack(e, kSharedGateUp, l, f.act.xn, gate_up, rest, chunk);
  f.glu_for_projection(e, "shared_swiglu", glu(f, gate_up[0], gate_up[1], f.act.act, width, rest), rest, chunk,
                       down);
  if (gated_down) {
    const QuantizedX act = f.quantized_input(e, down_into_x);
    e(dmmv_intdot_gated_op(down_into_x, act, ForwardContext::columns(f.act.shared_gate, rest), f.limits),
      "shared_down_gated");
    return;
  }
  f.project(e, "shared_down", down, f.act.act, f.act.tmp, rest, false, chunk);
  const SigmoidMulProblem gate{ForwardContext::columns(f.act.shared_gate, rest),
                               ForwardContext::columns(f.act.tmp, rest),
                               c.hidden,
                               rest.count,
                               f.act.shared_gate.stride,
                               f.act.tmp.stride,
                               true};
  const AddInPlaceProblem add{ForwardContext::columns(f.act.x, rest), ForwardContext::columns(f.act.tmp, rest),
                              c.hidden, rest.count, f.act.x.stride, f.act.tmp.stride};
  // A matmul chunk's split down applies both in its reduction.
  if (f.gated_add_in_split_reduce(e, gate, add)) return;
  e(sigmoid_mul_op(gate), "shared_expert_gate");
  e(add_in_place_op(add), "shared_expert_add");
}

}  // namespace

void emit_ffn_block(Emitter& e, const ForwardContext& f, uint32_t layer, const Chunk& chunk, Columns rest) {
  if (rest.count == 0) return;
  const ModelConfig& c = f.config();
  const auto l = static_cast<int32_t>(layer);
  // In a MoE model the FFN norm only feeds the router and the experts: it counts as MoE time.
  e.at(c.has_moe() ? Phase::MoeRouter : Phase::FfnNorm, l, static_cast<int32_t>(chunk.pos0));
  // The norm writes its int8 form too where its first reader takes int8 inputs: the router, or
  // where only the experts do, their gate (the router then reads the floats).
  const DeviceTensor* first_projection = &f.tensor(c.has_moe() ? TensorRole::MoeRouter : TensorRole::FfnGate, l);
  if (c.has_moe() && !f.projects_int8(*first_projection, chunk, rest) &&
      experts_int8(f, f.tensor(TensorRole::MoeGateExps, l), chunk, rest)) {
    first_projection = &f.tensor(TensorRole::MoeGateExps, l);
  }
  // A dense FFN's norm feeds gate and up alone; a MoE's the router, the experts and a shared
  // expert's gate, up and sigmoid gate: all int8 where the router and the shared expert's are and
  // decode's experts take their gate, up and SwiGLU in one dispatch. Then its division by the RMS
  // may be deferred to them.
  const auto int8 = [&](TensorRole role) { return f.projects_int8(f.tensor(role, l), chunk, rest); };
  const bool shared_int8 = !c.moe.has_shared_expert() || (int8(TensorRole::SharedGate) &&
                                                          int8(TensorRole::SharedUp) && int8(TensorRole::SharedGateInp));
  const bool only_int8_readers = c.has_moe() ? int8(TensorRole::MoeRouter) && shared_int8 &&
                                                   fused_gate_up_applies(f, l, chunk, rest)
                                             : int8(TensorRole::FfnGate) && int8(TensorRole::FfnUp);
  f.norm_for_projection(e, "ffn_norm", f.act.x, f.tensor(TensorRole::FfnNorm, l), f.act.xn, rest, chunk,
                        *first_projection, only_int8_readers);
  if (!c.has_moe()) {
    emit_dense_ffn(e, f, l, chunk, rest);
    return;
  }
  // The router, then a shared expert, then the routed experts (in every strategy, so that
  // prefill and decode add into the residual in one order). The experts' accumulation is then
  // the layer's last op, and in decode the next norm moves into it, with their down where that is
  // one dispatch (defer_norm). Under ledger barriers the router runs beside the shared expert's
  // first projections, and the experts' gate and up beside its down (their int8 act apart,
  // Activations::experts_quantized_act).
  e.phase(Phase::MoeRouter);
  // With a shared expert's sigmoid gate: both read the norm, and where their weights stack they
  // are one dispatch (Qwen3.5).
  const std::vector<Columns2D> logits{f.act.router, f.act.shared_gate};
  f.project_stack(e, std::span(kRouterSharedGate).first(c.moe.has_shared_expert() ? 2 : 1), l, f.act.xn, logits,
                  rest, chunk);
  if (c.moe.has_shared_expert()) {
    // The experts read the norm's int8 form again (quantized_input takes it where nothing since
    // wrote it or xn: where the norm's division was deferred, xn itself was never written).
    const std::optional<QuantizedInput> normed = e.last_quantized;  // the norm's int8 form, if any
    emit_shared_expert(e, f, l, chunk, rest);
    if (normed) e.last_quantized = normed;
  }
  emit_experts(e, f, l, chunk, rest);
}

}  // namespace pb
