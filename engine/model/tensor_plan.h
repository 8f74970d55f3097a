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
  AttnOutputGate,   // Qwen3.5: the gate projection of gated attention
  AttnPostNorm,     // Gemma: norm of the attention output
  FfnNorm, FfnGate, FfnUp, FfnDown,
  FfnPostNorm,      // Gemma: norm of the FFN output
  MoeRouter, MoeGateExps, MoeUpExps, MoeDownExps,
  SharedGateInp, SharedGate, SharedUp, SharedDown,
  SsmQkv, SsmZ, SsmBeta, SsmAlpha, SsmConv, SsmDtBias, SsmALog, SsmNorm, SsmOut,
};

// Where a layer's projections stack (ModelWeights::stacked), each member after the first starts
// on a multiple of this many rows, as its output starts on as many floats in the activations'
// stacks (column_stride, engine/forward/activations.h).
inline constexpr uint64_t kStackPartRows = 64;
// `rows` rounded up to kStackPartRows: where the member after them starts in a padded stack.
inline uint64_t stack_part_rows(uint64_t rows) { return (rows + kStackPartRows - 1) / kStackPartRows * kStackPartRows; }

struct TensorSpec {
  std::string name;        // GGUF name, e.g. "blk.3.attn_q.weight"
  TensorRole role;
  int32_t layer = -1;      // block index; -1 for model-wide tensors
  uint64_t rows = 1;       // output features of one expert (1 for a vector)
  uint64_t cols = 0;       // input features (the vector length for a vector)
  uint64_t experts = 1;    // expert matrices stacked [experts][rows][cols]
  WeightFormat format = WeightFormat::F32;
  uint32_t id = 0;         // synthetic tensor id: the position in the plan
  float target_std = 0;    // synthetic matrices: standard deviation of the weights
  // Small F32 tensors (norm weights, conv weights, SSM parameters) are generated on the host:
  // center +- spread, exactly dyadic.
  bool host_values = false;
  float center = 1.0f;
  float spread = 0.1f;

  uint64_t bytes() const { return experts * tensor_bytes(format, rows, cols); }
  uint64_t total_rows() const { return experts * rows; }
};

// Weight formats: one for every matrix, or the default Q4_K_M-like mixture (attention V, FFN
// down projections and the LM head in Q6_K, every other matrix in Q4_K). Small vectors are
// always F32.
struct WeightChoice {
  std::optional<WeightFormat> uniform;  // nullopt = the mixture
  std::string name() const;             // "q4_k_m" or the format's name
};

inline constexpr std::string_view kWeightChoiceValues = "q4_k_m, f32, f16, q8_0, q4_k, q6_k";
std::optional<WeightChoice> parse_weight_choice(std::string_view name);

std::vector<TensorSpec> plan_tensors(const ModelConfig& config, const WeightChoice& choice);
uint64_t plan_bytes(const std::vector<TensorSpec>& plan);

}  // namespace pb
