#include "engine/forward/op_stream.h"

#include <cmath>

#include "engine/ops/argmax_op.h"
#include "engine/ops/attention_decode_op.h"
#include "engine/ops/attention_prefill_op.h"
#include "engine/ops/dmmv_op.h"
#include "engine/ops/embed_op.h"
#include "engine/ops/glu_op.h"
#include "engine/ops/kv_write_op.h"
#include "engine/ops/matmul_op.h"
#include "engine/ops/qk_norm_rope_op.h"
#include "engine/ops/rmsnorm_op.h"
#include "harness/errors.h"

namespace pb {

// Tags every op with the phase, layer and token it belongs to.
class OpStream::Emitter {
 public:
  explicit Emitter(std::vector<Op>& out) : out_(out) {}
  void at(Phase phase, int32_t layer, int32_t token) {
    phase_ = phase;
    layer_ = layer;
    token_ = token;
  }
  void phase(Phase phase) { phase_ = phase; }
  void operator()(Op op, const char* label) {
    op.phase = phase_;
    op.layer = layer_;
    op.token = token_;
    op.label = label;
    out_.push_back(std::move(op));
  }
  void operator()(std::vector<Op> ops, const char* label) {
    for (auto& op : ops) (*this)(std::move(op), label);
  }

 private:
  std::vector<Op>& out_;
  Phase phase_ = Phase::Embed;
  int32_t layer_ = 0;
  int32_t token_ = 0;
};

OpStream::OpStream(const ModelWeights& weights, const Activations& activations,
                   const DeviceInfo& device, ForwardOptions options)
    : weights_(weights),
      act_(activations),
      device_(device),
      options_(options),
      limits_(BindingLimits::of(device)) {}

uint32_t OpStream::chunk_width(uint32_t prompt_tokens) const {
  const uint32_t width = std::min(options_.max_cols(), prompt_tokens);
  if (width > act_.sizes().max_cols) {
    throw UsageError("chunk of " + std::to_string(width) + " columns exceeds the activations' " +
                     std::to_string(act_.sizes().max_cols));
  }
  return width;
}

TensorView OpStream::columns(const Buffer& b, uint32_t width, Columns cols) {
  const uint64_t stride = column_stride(width) * 4ull;
  return TensorView{&b, cols.first * stride, (cols.count - 1) * stride + width * 4ull};
}

std::vector<Op> OpStream::prefill(uint32_t prompt_tokens) const {
  if (prompt_tokens == 0) throw UsageError("the prompt must have at least one token");
  if (prompt_tokens > act_.sizes().max_ctx) throw UsageError("the prompt exceeds the context");
  std::vector<Op> ops;
  Emitter e(ops);
  const uint32_t width = chunk_width(prompt_tokens);
  for (uint32_t pos0 = 0; pos0 < prompt_tokens; pos0 += width) {
    const uint32_t n = std::min(width, prompt_tokens - pos0);
    emit_chunk(e, Chunk{pos0, n, pos0 + n == prompt_tokens, true});
  }
  return ops;
}

std::vector<Op> OpStream::decode(uint32_t first_pos, uint32_t steps) const {
  if (first_pos + steps > act_.sizes().max_ctx) throw UsageError("decode runs past the context");
  std::vector<Op> ops;
  Emitter e(ops);
  for (uint32_t s = 0; s < steps; ++s) emit_chunk(e, Chunk{first_pos + s, 1, true, false});
  return ops;
}

uint32_t OpStream::final_logits_column(uint32_t prompt_tokens, uint32_t decode_tokens) const {
  if (decode_tokens > 0) return 0;
  return (prompt_tokens - 1) % chunk_width(prompt_tokens);
}

void OpStream::emit_chunk(Emitter& e, const Chunk& chunk) const {
  const ModelConfig& c = weights_.config();
  const Columns all{0, chunk.ncols};
  const int32_t token = static_cast<int32_t>(chunk.pos0);
  e.at(Phase::Embed, 0, token);
  const DeviceTensor& table = weights_.get(TensorRole::TokenEmbd);
  e(embed_op(EmbedProblem{table.spec.format, table.view(), TensorView::whole(act_.tokens),
                          columns(act_.x, c.hidden, all), c.vocab, c.hidden, chunk.pos0, chunk.ncols,
                          column_stride(c.hidden), 1.0f},
             limits_),
    "embed");

  // Dead work (DESIGN.md, skip_dead_work): for prompt tokens other than the last, nothing after
  // the last layer's KV write is ever read.
  const bool skip = chunk.prefill && options_.skip_dead_work;
  const Columns last_only{chunk.ncols - 1, 1};
  for (uint32_t l = 0; l < c.n_layers; ++l) {
    Columns rest = all;
    if (skip && l + 1 == c.n_layers) rest = chunk.terminal ? last_only : Columns{0, 0};
    emit_layer(e, l, chunk, rest);
  }
  Columns tail = all;
  if (skip) tail = chunk.terminal ? last_only : Columns{0, 0};
  if (tail.count > 0) emit_tail(e, chunk, tail);
}

void OpStream::emit_layer(Emitter& e, uint32_t layer, const Chunk& chunk, Columns rest) const {
  const ModelConfig& c = weights_.config();
  const auto l = static_cast<int32_t>(layer);
  const Columns all{0, chunk.ncols};
  e.at(Phase::AttnNorm, l, static_cast<int32_t>(chunk.pos0));
  e(rmsnorm_op(RmsNormProblem{columns(act_.x, c.hidden, all), weights_.get(TensorRole::AttnNorm, l).view(),
                              columns(act_.xn, c.hidden, all), c.hidden, chunk.ncols,
                              column_stride(c.hidden), column_stride(c.hidden), c.rms_eps, false}),
    "attn_norm");

  e.phase(Phase::AttnQkv);
  project(e, "attn_q", weights_.get(TensorRole::AttnQ, l), act_.xn, act_.q, all, false, chunk);
  project(e, "attn_k", weights_.get(TensorRole::AttnK, l), act_.xn, act_.k, all, false, chunk);
  project(e, "attn_v", weights_.get(TensorRole::AttnV, l), act_.xn, act_.v, all, false, chunk);

  e.phase(Phase::AttnRope);
  QkNormRopeProblem rope;
  rope.q = columns(act_.q, c.q_dim(), all);
  rope.k = columns(act_.k, c.kv_dim(), all);
  if (c.qk_norm) {
    rope.q_norm = weights_.get(TensorRole::AttnQNorm, l).view();
    rope.k_norm = weights_.get(TensorRole::AttnKNorm, l).view();
  }
  rope.n_q_heads = c.n_heads;
  rope.n_k_heads = c.n_kv_heads;
  rope.head_dim = c.head_dim;
  rope.rope_dims = c.rope_dims;
  rope.pos0 = chunk.pos0;
  rope.ncols = chunk.ncols;
  rope.q_stride = column_stride(c.q_dim());
  rope.k_stride = column_stride(c.kv_dim());
  rope.theta = c.rope_theta;
  rope.eps = c.rms_eps;
  rope.style = c.rope_style;
  rope.qk_norm = c.qk_norm;
  e(qk_norm_rope_op(rope), c.qk_norm ? "qk_norm_rope" : "rope");

  e.phase(Phase::AttnKvWrite);
  const uint32_t max_ctx = act_.sizes().max_ctx;
  const KvCacheView cache{TensorView::whole(act_.k_cache[layer]), TensorView::whole(act_.v_cache[layer])};
  e(kv_write_op(KvWriteProblem{columns(act_.k, c.kv_dim(), all), columns(act_.v, c.kv_dim(), all),
                               cache.k, cache.v, c.n_kv_heads, c.head_dim, max_ctx, chunk.pos0,
                               chunk.ncols, column_stride(c.kv_dim()), column_stride(c.kv_dim())}),
    "kv_write");
  if (rest.count == 0) return;

  e.phase(Phase::FlashAttn);
  const AttentionShape shape{c.n_heads, c.n_kv_heads, c.head_dim, max_ctx, 0,
                             static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.head_dim)))};
  if (rest.count == 1) {
    e(attention_decode_ops(AttentionDecodeProblem{shape, cache, columns(act_.q, c.q_dim(), rest),
                                                  columns(act_.attn, c.q_dim(), rest),
                                                  TensorView::whole(act_.scratch),
                                                  chunk.pos0 + rest.first},
                           limits_),
      "attention");
  } else {
    e(attention_prefill_ops(AttentionPrefillProblem{shape, cache, columns(act_.q, c.q_dim(), rest),
                                                    columns(act_.attn, c.q_dim(), rest),
                                                    chunk.pos0 + rest.first, rest.count,
                                                    column_stride(c.q_dim()), column_stride(c.q_dim())},
                            limits_),
      "attention");
  }

  e.phase(Phase::AttnOut);
  project(e, "attn_output", weights_.get(TensorRole::AttnOutput, l), act_.attn, act_.x, rest, true, chunk);

  e.phase(Phase::FfnNorm);
  e(rmsnorm_op(RmsNormProblem{columns(act_.x, c.hidden, rest), weights_.get(TensorRole::FfnNorm, l).view(),
                              columns(act_.xn, c.hidden, rest), c.hidden, rest.count,
                              column_stride(c.hidden), column_stride(c.hidden), c.rms_eps, false}),
    "ffn_norm");
  e.phase(Phase::FfnGateUp);
  project(e, "ffn_gate", weights_.get(TensorRole::FfnGate, l), act_.xn, act_.gate, rest, false, chunk);
  project(e, "ffn_up", weights_.get(TensorRole::FfnUp, l), act_.xn, act_.up, rest, false, chunk);
  e.phase(Phase::FfnAct);
  const uint32_t fs = column_stride(c.ffn_hidden);
  e(glu_op(GluProblem{columns(act_.gate, c.ffn_hidden, rest), columns(act_.up, c.ffn_hidden, rest),
                      columns(act_.act, c.ffn_hidden, rest), c.ffn_hidden, rest.count, fs, fs, fs,
                      GluActivation::Silu}),
    "swiglu");
  e.phase(Phase::FfnDown);
  project(e, "ffn_down", weights_.get(TensorRole::FfnDown, l), act_.act, act_.x, rest, true, chunk);
}

void OpStream::emit_tail(Emitter& e, const Chunk& chunk, Columns cols) const {
  const ModelConfig& c = weights_.config();
  const auto last = static_cast<int32_t>(c.n_layers - 1);
  e.at(Phase::FinalNorm, last, static_cast<int32_t>(chunk.pos0));
  e(rmsnorm_op(RmsNormProblem{columns(act_.x, c.hidden, cols), weights_.get(TensorRole::OutputNorm).view(),
                              columns(act_.xn, c.hidden, cols), c.hidden, cols.count,
                              column_stride(c.hidden), column_stride(c.hidden), c.rms_eps, false}),
    "final_norm");
  e.phase(Phase::LmHead);
  const DeviceTensor& head =
      c.tied_embeddings ? weights_.get(TensorRole::TokenEmbd) : weights_.get(TensorRole::Output);
  project(e, "lm_head", head, act_.xn, act_.logits, cols, false, chunk);

  e.phase(Phase::Sample);
  // The sample of the prompt's last token (and of every decode step) feeds the next embedding;
  // samples of earlier prompt positions are dead work written where nothing reads them.
  const bool ends_prompt = chunk.terminal && cols.first + cols.count == chunk.ncols;
  if (!ends_prompt) {
    emit_sample(e, chunk, cols, false);
  } else {
    if (cols.count > 1) emit_sample(e, chunk, {cols.first, cols.count - 1}, false);
    emit_sample(e, chunk, {cols.first + cols.count - 1, 1}, true);
  }
}

void OpStream::emit_sample(Emitter& e, const Chunk& chunk, Columns cols, bool into_tokens) const {
  const ModelConfig& c = weights_.config();
  const uint32_t out_pos = chunk.pos0 + cols.first + 1;
  e(argmax_op(ArgmaxProblem{columns(act_.logits, c.vocab, cols),
                            TensorView::whole(into_tokens ? act_.tokens : act_.predicted),
                            TensorView{&act_.top2, out_pos * 16ull, cols.count * 16ull}, c.vocab,
                            cols.count, column_stride(c.vocab), out_pos},
              limits_),
    into_tokens ? "sample" : "sample_dead");
}

void OpStream::project(Emitter& e, const char* label, const DeviceTensor& w, const Buffer& x,
                       const Buffer& y, Columns cols, bool accumulate, const Chunk& chunk) const {
  const auto rows = static_cast<uint32_t>(w.spec.rows);
  const auto in = static_cast<uint32_t>(w.spec.cols);
  const ProjectionProblem p{w.spec.format, w.view(), columns(x, in, cols), columns(y, rows, cols),
                            rows, in, cols.count, column_stride(in), column_stride(rows), accumulate};
  const bool matmul = chunk.prefill && options_.prefill == PrefillStrategy::Matmul && cols.count > 1;
  if (matmul) {
    e(matmul_ops(p, limits_, choose_matmul(device_, w.spec.format, options_.allow_coopmat)), label);
  } else {
    e(dmmv_ops(p, options_.num_cols, limits_), label);
  }
}

}  // namespace pb
