// The attention block of a layer: norm, q/k/v (and Qwen3.5's output gate) projections, q/k
// norms with RoPE and the KV write (one dispatch; in decode, part of the attention dispatch),
// attention (sliding-window where the layer has a window), the output projection into the
// residual (through Gemma's post-norm where the model has one).
#include <cmath>

#include "engine/forward/forward_context.h"
#include "engine/ops/attention_decode_op.h"
#include "engine/ops/attention_prefill_op.h"
#include "engine/ops/rope_kv_write_op.h"
#include "engine/ops/sigmoid_mul_op.h"

namespace pb {
namespace {

// q, k and v, and Qwen3.5's output gate: stored as one stack where the weights allow, so they
// project in one dispatch.
constexpr StackMember kQkvGate[] = {{TensorRole::AttnQ, "attn_q", nullptr},
                                    {TensorRole::AttnK, "attn_k", "attn_qk"},
                                    {TensorRole::AttnV, "attn_v", "attn_qkv"},
                                    {TensorRole::AttnOutputGate, "attn_gate", "attn_qkv_gate"}};

QkNormRopeProblem rope_problem(const ForwardContext& f, uint32_t layer, const Chunk& chunk, const Columns2D& q,
                               const Columns2D& k) {
  const ModelConfig& c = f.config();
  const auto l = static_cast<int32_t>(layer);
  const LayerAttention a = c.attention(layer);
  const Columns all = chunk.all();
  QkNormRopeProblem rope;
  rope.q = ForwardContext::columns(q, all);
  rope.k = ForwardContext::columns(k, all);
  if (c.qk_norm) {
    rope.q_norm = f.tensor(TensorRole::AttnQNorm, l).view();
    rope.k_norm = f.tensor(TensorRole::AttnKNorm, l).view();
  }
  rope.n_q_heads = c.n_heads;
  rope.n_k_heads = c.n_kv_heads;
  rope.head_dim = a.head_dim;
  rope.rope_dims = a.rope_dims;
  rope.pos0 = chunk.pos0;
  rope.ncols = chunk.ncols;
  rope.q_stride = q.stride;
  rope.k_stride = k.stride;
  rope.theta = a.rope_theta;
  rope.eps = c.rms_eps;
  rope.style = c.rope_style;
  rope.qk_norm = c.qk_norm;
  rope.add_one = c.norm_add_one;
  return rope;
}

}  // namespace

void emit_attention_block(Emitter& e, const ForwardContext& f, uint32_t layer, const Chunk& chunk, Columns rest) {
  const ModelConfig& c = f.config();
  const auto l = static_cast<int32_t>(layer);
  const LayerAttention a = c.attention(layer);
  const uint32_t q_dim = c.n_heads * a.head_dim;
  const Columns all = chunk.all();
  e.at(Phase::AttnNorm, l, static_cast<int32_t>(chunk.pos0));
  const auto int8 = [&](TensorRole role) { return f.projects_int8(f.tensor(role, l), chunk, all); };
  const bool only_int8_readers = int8(TensorRole::AttnQ) && int8(TensorRole::AttnK) && int8(TensorRole::AttnV) &&
                                 (!c.attention_output_gate || int8(TensorRole::AttnOutputGate));
  f.norm_for_projection(e, "attn_norm", f.act.x, f.tensor(TensorRole::AttnNorm, l), f.act.xn, all, chunk,
                        f.tensor(TensorRole::AttnQ, l), only_int8_readers);

  e.phase(Phase::AttnQkv);
  const std::vector<Columns2D> qkv = f.act.qkv(c, layer);
  const Columns2D &q_out = qkv[0], &k_out = qkv[1], &v_out = qkv[2];
  // The output gate joins the stack where every column's attention output is wanted; else it
  // projects only the columns that are.
  const bool gate_stacked = c.attention_output_gate && rest.first == all.first && rest.count == all.count;
  f.project_stack(e, std::span(kQkvGate).first(gate_stacked ? 4 : 3), l, f.act.xn, qkv, all, chunk);
  if (c.attention_output_gate && !gate_stacked && rest.count > 0) {
    f.project(e, "attn_gate", f.tensor(TensorRole::AttnOutputGate, l), f.act.xn, qkv[3], rest, false, chunk);
  }
  // The RoPE writes k (and copies v) into the cache in the same dispatch: the KV write has no
  // dispatch of its own, so its time shows in attn_rope. A decode token's attention does both
  // itself (attn_decode_rope), so there its time shows in flash_attn.
  const uint32_t max_ctx = f.act.sizes().max_ctx;
  const KvCacheView cache{TensorView::whole(f.act.k_cache[layer]), TensorView::whole(f.act.v_cache[layer])};
  const QkNormRopeProblem rope = rope_problem(f, layer, chunk, q_out, k_out);
  const bool rope_in_attention = chunk.ncols == 1 && rest.count == 1;
  if (!rope_in_attention) {
    e.phase(Phase::AttnRope);
    const KvWriteProblem kv{ForwardContext::columns(k_out, all), ForwardContext::columns(v_out, all), cache.k, cache.v,
                            c.n_kv_heads, a.head_dim, max_ctx, chunk.pos0, chunk.ncols, k_out.stride, v_out.stride};
    e(rope_kv_write_op(rope, kv), c.qk_norm ? "qk_norm_rope_kv_write" : "rope_kv_write");
  }
  if (rest.count == 0) return;

  e.phase(Phase::FlashAttn);
  const AttentionShape shape{c.n_heads, c.n_kv_heads, a.head_dim, max_ctx, a.window,
                             static_cast<float>(1.0 / std::sqrt(static_cast<double>(a.head_dim)))};
  const TensorView q = ForwardContext::columns(q_out, rest);
  const TensorView o = ForwardContext::columns(f.act.attn, q_dim, rest);
  const DeviceTensor& wo = f.tensor(TensorRole::AttnOutput, l);
  const TensorView gate = c.attention_output_gate ? ForwardContext::columns(qkv[3], q_dim, rest) : TensorView{};
  bool gated = false;  // whether the attention applied the output gate
  if (rest.count == 1) {
    AttentionDecodeProblem decode{shape, cache, q, o, TensorView::whole(f.act.scratch), chunk.pos0 + rest.first};
    if (rope_in_attention) decode.rope = AttentionDecodeRope{rope, ForwardContext::columns(v_out, all)};
    // Where it quantizes o for the projection, it applies the output gate first.
    gated = f.decode_attention_for_projection(e, decode, f.act.attn.stride, rest, chunk, wo, gate);
  } else {
    e(attention_prefill_ops(AttentionPrefillProblem{shape, cache, q, o, chunk.pos0 + rest.first, rest.count,
                                                    q_out.stride, f.act.attn.stride},
                            f.limits),
      "attention");
  }

  e.phase(Phase::AttnOut);
  if (c.attention_output_gate && !gated) {
    e(sigmoid_mul_op(SigmoidMulProblem{gate, o, q_dim, rest.count, qkv[3].stride, f.act.attn.stride, false}),
      "attn_output_gate");
  }
  if (c.post_norms) {
    f.project(e, "attn_output", wo, f.act.attn, f.act.tmp, rest, false, chunk);
    f.post_norm_add(e, TensorRole::AttnPostNorm, l, rest);
  } else {
    f.project(e, "attn_output", wo, f.act.attn, f.act.x, rest, true, chunk);
  }
}

}  // namespace pb
