#include "engine/forward/op_stream.h"

#include <algorithm>
#include <string>
#include <utility>

#include "engine/ops/argmax_op.h"
#include "engine/ops/dmmv_intdot_op.h"
#include "engine/ops/embed_op.h"
#include "harness/errors.h"

namespace pb {

OpStream::OpStream(const ModelWeights& weights, const Activations& activations, const DeviceInfo& device,
                   ForwardOptions options)
    : options_(options), f_{weights, activations, device, options_, BindingLimits::of(device)} {
  if (options_.dmmv_activations == DmmvActivations::Int8) require_dmmv_intdot(device);
  for (const auto& [axis, placement] : {std::pair{"norm_placement", options_.norm_placement},
                                         std::pair{"glu_placement", options_.glu_placement}}) {
    if (placement == Placement::Producer && options_.dmmv_activations != DmmvActivations::Int8) {
      throw UsageError(std::string(axis) + " producer: what moves into the projection is the op's int8 output, so it "
                       "needs dmmv_activations int8");
    }
  }
}

uint32_t OpStream::chunk_width(uint32_t prompt_tokens) const {
  const uint32_t width = std::min(options_.max_cols(), prompt_tokens);
  if (width > f_.act.sizes().max_cols) {
    throw UsageError("chunk of " + std::to_string(width) + " columns exceeds the activations' " +
                     std::to_string(f_.act.sizes().max_cols));
  }
  return width;
}

std::vector<Op> OpStream::prefill(uint32_t prompt_tokens) const {
  if (prompt_tokens == 0) throw UsageError("the prompt must have at least one token");
  if (prompt_tokens > f_.act.sizes().max_ctx) throw UsageError("the prompt exceeds the context");
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
  if (first_pos + steps > f_.act.sizes().max_ctx) throw UsageError("decode runs past the context");
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
  const ModelConfig& c = f_.config();
  const Columns all = chunk.all();
  e.at(Phase::Embed, 0, static_cast<int32_t>(chunk.pos0));
  const DeviceTensor& table = f_.tensor(TensorRole::TokenEmbd);
  const EmbedProblem embed{table.spec.format, table.view(), TensorView::whole(f_.act.tokens),
                           ForwardContext::columns(f_.act.x, all), c.vocab, c.hidden, chunk.pos0, chunk.ncols,
                           f_.act.x.stride, c.embed_scale};
  e(embed_op(embed, f_.limits), "embed");
  if (!chunk.prefill && chunk.ncols == 1) e.last_embed = EmbedRecord{embed, e.ops().size() - 1};

  // Dead work (DESIGN.md, skip_dead_work): for prompt tokens other than the last, nothing after
  // the last layer's state updates (KV write, SSM recurrence) is ever read.
  const bool skip = chunk.prefill && options_.skip_dead_work;
  const Columns last_only{chunk.ncols - 1, 1};
  for (uint32_t l = 0; l < c.n_layers; ++l) {
    Columns rest = all;
    if (skip && l + 1 == c.n_layers) rest = chunk.terminal ? last_only : Columns{0, 0};
    if (c.layer_kind(l) == LayerKind::DeltaNet) {
      emit_deltanet_block(e, f_, l, chunk, rest);
    } else {
      emit_attention_block(e, f_, l, chunk, rest);
    }
    emit_ffn_block(e, f_, l, chunk, rest);
  }
  Columns tail = all;
  if (skip) tail = chunk.terminal ? last_only : Columns{0, 0};
  if (tail.count > 0) emit_tail(e, chunk, tail);
}

void OpStream::emit_tail(Emitter& e, const Chunk& chunk, Columns cols) const {
  const ModelConfig& c = f_.config();
  e.at(Phase::FinalNorm, static_cast<int32_t>(c.n_layers - 1), static_cast<int32_t>(chunk.pos0));
  const DeviceTensor& head = f_.tensor(c.tied_embeddings ? TensorRole::TokenEmbd : TensorRole::Output);
  f_.norm_for_projection(e, "final_norm", f_.act.x, f_.tensor(TensorRole::OutputNorm), f_.act.xn, cols, chunk, head,
                         true);  // read by the LM head alone
  e.phase(Phase::LmHead);
  f_.project(e, "lm_head", head, f_.act.xn, f_.act.logits, cols, false, chunk);

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
  const ModelConfig& c = f_.config();
  const uint32_t out_pos = chunk.pos0 + cols.first + 1;
  e(sampler_argmax_op(ArgmaxProblem{ForwardContext::columns(f_.act.logits, cols),
                                    TensorView::whole(into_tokens ? f_.act.tokens : f_.act.predicted),
                                    TensorView{&f_.act.top2, out_pos * 16ull, cols.count * 16ull}, c.vocab,
                                    cols.count, f_.act.logits.stride, out_pos,
                                    TensorView::whole(f_.act.argmax_partials)},
                      f_.limits),
    into_tokens ? "sample" : "sample_dead");
}

}  // namespace pb
