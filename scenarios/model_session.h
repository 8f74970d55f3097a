// A model loaded on the device for a sweep: its weights, the activation buffers sized for every
// configuration that shares it, and the prompt. Loading checks device memory first, so a model
// too large for the device fails before anything is allocated.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/forward/activations.h"
#include "engine/model/model_config.h"
#include "engine/model/model_weights.h"
#include "scenarios/run_config.h"
#include "scenarios/model_facts.h"

namespace pb {

class Device;
class PipelineSet;
class Transfer;

class ModelSession {
 public:
  // Loads `config`'s model (preset with synthetic weights) with activations for `sizes`.
  ModelSession(Device& device, PipelineSet& pipelines, Transfer& transfer, const RunConfig& config,
               const ActivationSizes& sizes);

  const ModelConfig& config() const { return config_; }
  const ModelWeights& weights() const { return *weights_; }
  const Activations& activations() const { return *activations_; }
  Transfer& transfer() { return transfer_; }
  ModelFacts facts() const;

  // Writes the deterministic prompt for (seed, length) into the token buffer and zeroes the
  // sampler's arrival counters (a run's start); returns the prompt.
  std::vector<uint32_t> load_prompt(uint32_t seed, uint32_t length);

  // The activation sizes every config in `configs` needs (the widest chunk, the longest context).
  static ActivationSizes sizes_for(const ModelConfig& model, const std::vector<RunConfig>& configs);

 private:
  ModelConfig config_;
  Transfer& transfer_;
  std::unique_ptr<ModelWeights> weights_;
  std::unique_ptr<Activations> activations_;
};

// The model config of a run: the preset's, or the GGUF file's metadata.
ModelConfig model_config_for(const RunConfig& config);

// A deterministic prompt: token ids from a counter-based hash of (seed, position).
std::vector<uint32_t> synthetic_prompt(uint32_t seed, uint32_t length, uint32_t vocab);

}  // namespace pb
