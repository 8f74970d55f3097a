#include "engine/model/tensor_plan.h"

#include <cmath>

namespace pb {

std::string WeightChoice::name() const {
  return uniform ? std::string(format_name(*uniform)) : std::string("q4_k_m");
}

std::optional<WeightChoice> parse_weight_choice(std::string_view name) {
  if (name == "q4_k_m") return WeightChoice{};
  if (auto format = parse_weight_format(name)) return WeightChoice{format};
  return std::nullopt;
}

std::vector<TensorSpec> plan_tensors(const ModelConfig& c, const WeightChoice& choice) {
  std::vector<TensorSpec> plan;
  auto matrix_format = [&](TensorRole role) {
    if (choice.uniform) return *choice.uniform;
    const bool high = role == TensorRole::AttnV || role == TensorRole::FfnDown ||
                      role == TensorRole::Output;
    return high ? WeightFormat::Q6_K : WeightFormat::Q4_K;
  };
  auto matrix = [&](std::string name, TensorRole role, int32_t layer, uint64_t rows, uint64_t cols) {
    TensorSpec t{std::move(name), role, layer, rows, cols, matrix_format(role)};
    t.id = static_cast<uint32_t>(plan.size());
    // 1/sqrt(fan-in) keeps every projection's output at the scale of its input.
    t.target_std = static_cast<float>(1.0 / std::sqrt(static_cast<double>(cols)));
    plan.push_back(t);
  };
  auto norm = [&](std::string name, TensorRole role, int32_t layer, uint64_t length) {
    TensorSpec t{std::move(name), role, layer, 1, length, WeightFormat::F32};
    t.id = static_cast<uint32_t>(plan.size());
    t.is_norm = true;
    plan.push_back(t);
  };

  matrix("token_embd.weight", TensorRole::TokenEmbd, -1, c.vocab, c.hidden);
  plan.back().target_std = 1.0f;  // embeddings are not a projection; RMSNorm rescales them
  for (uint32_t l = 0; l < c.n_layers; ++l) {
    const int32_t li = static_cast<int32_t>(l);
    const std::string b = "blk." + std::to_string(l) + ".";
    norm(b + "attn_norm.weight", TensorRole::AttnNorm, li, c.hidden);
    matrix(b + "attn_q.weight", TensorRole::AttnQ, li, c.q_dim(), c.hidden);
    matrix(b + "attn_k.weight", TensorRole::AttnK, li, c.kv_dim(), c.hidden);
    matrix(b + "attn_v.weight", TensorRole::AttnV, li, c.kv_dim(), c.hidden);
    if (c.qk_norm) {
      norm(b + "attn_q_norm.weight", TensorRole::AttnQNorm, li, c.head_dim);
      norm(b + "attn_k_norm.weight", TensorRole::AttnKNorm, li, c.head_dim);
    }
    matrix(b + "attn_output.weight", TensorRole::AttnOutput, li, c.hidden, c.q_dim());
    norm(b + "ffn_norm.weight", TensorRole::FfnNorm, li, c.hidden);
    matrix(b + "ffn_gate.weight", TensorRole::FfnGate, li, c.ffn_hidden, c.hidden);
    matrix(b + "ffn_up.weight", TensorRole::FfnUp, li, c.ffn_hidden, c.hidden);
    matrix(b + "ffn_down.weight", TensorRole::FfnDown, li, c.hidden, c.ffn_hidden);
  }
  norm("output_norm.weight", TensorRole::OutputNorm, -1, c.hidden);
  if (!c.tied_embeddings) matrix("output.weight", TensorRole::Output, -1, c.vocab, c.hidden);
  return plan;
}

uint64_t plan_bytes(const std::vector<TensorSpec>& plan) {
  uint64_t total = 0;
  for (const auto& t : plan) total += t.bytes();
  return total;
}

}  // namespace pb
