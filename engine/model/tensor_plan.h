// Which weight tensors a model has, with their GGUF names, shapes and storage formats. The
// plan is the single list that synthetic generation, GGUF export/import and the CPU reference
// all walk, so they agree on what every tensor is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model/model_config.h"
#include "engine/quant/weight_format.h"

namespace pb {

enum class TensorRole {
  TokenEmbd, OutputNorm, Output,
  AttnNorm, AttnQ, AttnK, AttnV, AttnOutput, AttnQNorm, AttnKNorm,
  FfnNorm, FfnGate, FfnUp, FfnDown,
};

struct TensorSpec {
  std::string name;      // GGUF name, e.g. "blk.3.attn_q.weight"
  TensorRole role;
  int32_t layer = -1;    // block index; -1 for model-wide tensors
  uint64_t rows = 1;     // output features (1 for a vector)
  uint64_t cols = 0;     // input features (the vector length for a vector)
  WeightFormat format = WeightFormat::F32;
  uint32_t id = 0;       // synthetic tensor id: the position in the plan
  float target_std = 0;  // synthetic matrices: standard deviation of the weights
  bool is_norm = false;  // a norm weight vector: synthetic values 1 +- 0.1, exactly dyadic

  uint64_t bytes() const { return tensor_bytes(format, rows, cols); }
};

// Weight formats: one for every matrix, or the default Q4_K_M-like mixture (attention V, FFN
// down and the LM head in Q6_K, every other matrix in Q4_K). Norm weights are always F32.
struct WeightChoice {
  std::optional<WeightFormat> uniform;  // nullopt = the mixture
  std::string name() const;             // "q4_k_m" or the format's name
};

inline constexpr std::string_view kWeightChoiceValues = "q4_k_m, f32, f16, q8_0, q4_k, q6_k";
std::optional<WeightChoice> parse_weight_choice(std::string_view name);

std::vector<TensorSpec> plan_tensors(const ModelConfig& config, const WeightChoice& choice);
uint64_t plan_bytes(const std::vector<TensorSpec>& plan);

}  // namespace pb
