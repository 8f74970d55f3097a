// The Gated DeltaNet block of a hybrid layer (Qwen3.5): its norm and input projections
// (ssm_proj: fused q/k/v, the output gate z, beta and alpha), the causal conv with its carried
// state (ssm_conv; in decode inside the recurrence), the delta-rule recurrence (ssm_delta), the
// gated RMSNorm (ssm_gnorm; in an int8 decode inside the recurrence too) and
// the output projection into the residual (ssm_out). The recurrence runs token by token inside
// one dispatch even when the projections are batched over the chunk.
#include "engine/forward/forward_context.h"
#include "engine/ops/fill_zero_op.h"
#include "engine/ops/ssm_conv_op.h"
#include "engine/ops/ssm_delta_op.h"

namespace pb {
namespace {

// The input projections, stacked where the weights lie so (ModelWeights::stacked): q/k/v into
// the conv's input, the output gate z, beta and alpha.
constexpr StackMember kSsmIn[] = {{TensorRole::SsmQkv, "ssm_qkv", nullptr},
                                  {TensorRole::SsmZ, "ssm_z", "ssm_qkv_z"},
                                  {TensorRole::SsmBeta, "ssm_beta", "ssm_qkv_z_beta"},
                                  {TensorRole::SsmAlpha, "ssm_alpha", "ssm_in"}};

}  // namespace

void emit_deltanet_block(Emitter& e, const ForwardContext& f, uint32_t layer, const Chunk& chunk, Columns rest) {
  const ModelConfig& c = f.config();
  const SsmShape& s = c.ssm;
  const auto l = static_cast<int32_t>(layer);
  const Columns all = chunk.all();
  // The block's input norm exists only to feed its projections: it counts as ssm_proj.
  e.at(Phase::SsmProj, l, static_cast<int32_t>(chunk.pos0));
  // Its readers are the four input projections alone: where all take int8 inputs, the norm's
  // division may be deferred to them (defer_norm).
  const auto int8 = [&](TensorRole role) { return f.projects_int8(f.tensor(role, l), chunk, all); };
  const bool only_int8_readers =
      int8(TensorRole::SsmQkv) && int8(TensorRole::SsmZ) && int8(TensorRole::SsmBeta) && int8(TensorRole::SsmAlpha);
  f.norm_for_projection(e, "ssm_norm_in", f.act.x, f.tensor(TensorRole::AttnNorm, l), f.act.xn, all, chunk,
                        f.tensor(TensorRole::SsmQkv, l), only_int8_readers);
  f.project_stack(e, kSsmIn, l, f.act.xn, {f.act.conv_in, f.act.ssm_z, f.act.ssm_b, f.act.ssm_a}, all, chunk);

  const TensorView conv_state = TensorView::whole(f.act.conv_state[layer]);
  const TensorView delta_state = TensorView::whole(f.act.delta_state[layer]);
  const TensorView conv_weight = f.tensor(TensorRole::SsmConv, l).view();
  // A decode step's conv runs inside the recurrence (ssm_conv_delta_op): one dispatch and one
  // barrier less per layer. A prefill chunk keeps the conv's own dispatch, which runs each
  // channel once over all the chunk's tokens where the recurrence's workgroups would each
  // compute the channels they read.
  const bool conv_inside = !chunk.prefill && chunk.ncols == 1;
  e.phase(Phase::SsmConv);
  // A prompt starts from empty states: every repetition replays it from position 0.
  if (chunk.prefill && chunk.pos0 == 0) e(fill_zero_op(conv_state), "ssm_conv_reset");
  if (!conv_inside) {
    e(ssm_conv_op(SsmConvProblem{ForwardContext::columns(f.act.conv_in, all), conv_weight, conv_state,
                                 ForwardContext::columns(f.act.conv_out, all), s.channels(), s.conv_width,
                                 chunk.ncols, f.act.conv_in.stride, f.act.conv_out.stride}),
      "ssm_conv");
  }

  e.phase(Phase::SsmDelta);
  if (chunk.prefill && chunk.pos0 == 0) e(fill_zero_op(delta_state), "ssm_state_reset");
  SsmDeltaProblem delta;
  delta.shape = s;
  const Columns2D& qkv = conv_inside ? f.act.conv_in : f.act.conv_out;
  delta.qkv = ForwardContext::columns(qkv, all);
  delta.b = ForwardContext::columns(f.act.ssm_b, all);
  delta.a = ForwardContext::columns(f.act.ssm_a, all);
  delta.a_log = f.tensor(TensorRole::SsmALog, l).view();
  delta.dt_bias = f.tensor(TensorRole::SsmDtBias, l).view();
  delta.state = delta_state;
  delta.o = ForwardContext::columns(f.act.ssm_o, all);
  delta.ncols = chunk.ncols;
  delta.qkv_stride = qkv.stride;
  delta.q_offset = s.q_offset();
  delta.k_offset = s.k_offset();
  delta.v_offset = s.v_offset();
  delta.b_stride = f.act.ssm_b.stride;
  delta.a_stride = f.act.ssm_a.stride;
  delta.o_stride = f.act.ssm_o.stride;
  const SsmConvInput conv{conv_weight, conv_state, TensorView::whole(f.act.ssm_conv_arrivals), s.conv_width};
  const DeviceTensor& out = f.tensor(TensorRole::SsmOut, l);
  const SsmGnormProblem gnorm{ForwardContext::columns(f.act.ssm_o, rest), ForwardContext::columns(f.act.ssm_z, rest),
                              f.tensor(TensorRole::SsmNorm, l).view(), ForwardContext::columns(f.act.ssm_g, rest),
                              s.value_heads, s.d_v, rest.count, f.act.ssm_o.stride, f.act.ssm_z.stride,
                              f.act.ssm_g.stride, c.rms_eps};
  // In decode the output norm runs inside the recurrence too, where it writes the output
  // projection's int8 input (ssm_delta_gnorm_for_projection).
  if (!conv_inside || !f.ssm_delta_gnorm_for_projection(e, delta, conv, gnorm, rest, chunk, out)) {
    if (conv_inside) {
      e(ssm_conv_delta_op(delta, conv), "ssm_conv_delta");
    } else {
      e(ssm_delta_op(delta), "ssm_delta");
    }
    if (rest.count == 0) return;
    e.phase(Phase::SsmGnorm);
    // It writes the int8 form the output projection reads, where that takes int8 inputs.
    f.ssm_gnorm_for_projection(e, "ssm_gnorm", gnorm, rest, chunk, out);
  }
  e.phase(Phase::SsmOut);
  f.project(e, "ssm_out", out, f.act.ssm_g, f.act.x, rest, true, chunk);
}

}  // namespace pb
