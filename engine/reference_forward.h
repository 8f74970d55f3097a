// The CPU reference forward: the same model, the same synthetic weights, one token at a time in
// float32 with float64 accumulation in every dot product and the KV cache rounded to float16
// exactly as the device stores it. What every GPU schedule is checked against.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/model/host_weights.h"
#include "engine/model/model_config.h"

namespace pb {

struct ReferenceResult {
  std::vector<uint32_t> generated;   // the token after the prompt, then one per decode step
  std::vector<float> margins;        // top-1 minus top-2 logit for each generated token
  std::vector<float> prompt_logits;  // logits after the last prompt token [vocab]
  std::vector<float> final_logits;   // logits that chose the last generated token [vocab]
};

struct ReferenceOptions {
  // Projections whose format has an integer path take their input quantized to int8 blocks, as
  // the GPU's dmmv_activations int8 does (engine/reference/dmmv_intdot_ref.h).
  bool int8_activations = false;
};

// Runs the prompt and `decode_tokens` greedy steps. Sized for the tiny presets.
ReferenceResult reference_generate(const ModelConfig& config, const HostWeights& weights,
                                   std::span<const uint32_t> prompt, uint32_t decode_tokens,
                                   const ReferenceOptions& options = {});

}  // namespace pb
