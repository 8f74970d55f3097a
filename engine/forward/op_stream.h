// The forward pass as an op stream. Each op carries its phase, layer and token; none is
// recorded here. The prefill strategy (DESIGN.md) decides which ops exist: one token at a time,
// column chunks through the batched DMMV, or chunks through the tiled matmul.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/forward/activations.h"
#include "engine/forward/forward_context.h"
#include "engine/forward/forward_options.h"
#include "engine/model/model_weights.h"
#include "harness/device_info.h"
#include "harness/op.h"

namespace pb {

class OpStream {
 public:
  OpStream(const ModelWeights& weights, const Activations& activations, const DeviceInfo& device,
           ForwardOptions options);

  // Positions 0 .. prompt_tokens - 1 from the prompt in the token buffer; the last op samples
  // the first generated token into tokens[prompt_tokens].
  std::vector<Op> prefill(uint32_t prompt_tokens) const;

  // `steps` decode steps from position first_pos: step s embeds tokens[first_pos + s] and
  // samples tokens[first_pos + s + 1], all on the GPU.
  std::vector<Op> decode(uint32_t first_pos, uint32_t steps) const;

  const ForwardOptions& options() const { return options_; }

  // The logits column that chose the last generated token.
  uint32_t final_logits_column(uint32_t prompt_tokens, uint32_t decode_tokens) const;

 private:
  // Tokens per prefill chunk: chunk_cols, or the whole prompt when it is shorter.
  uint32_t chunk_width(uint32_t prompt_tokens) const;
  void emit_chunk(Emitter& e, const Chunk& chunk) const;
  void emit_tail(Emitter& e, const Chunk& chunk, Columns cols) const;
  void emit_sample(Emitter& e, const Chunk& chunk, Columns cols, bool into_tokens) const;

  ForwardOptions options_;
  ForwardContext f_;
};

}  // namespace pb
