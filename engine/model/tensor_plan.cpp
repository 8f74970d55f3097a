#include "engine/model/tensor_plan.h"

#include <cmath>

namespace pb {
namespace {

class Planner {
 public:
  Planner(const ModelConfig& c, const WeightChoice& choice) : c_(c), choice_(choice) {}

  void matrix(std::string name, TensorRole role, int32_t layer, uint64_t rows, uint64_t cols,
              uint64_t experts = 1) {
    TensorSpec t{std::move(name), role, layer, rows, cols, experts, format_of(role)};
    t.id = static_cast<uint32_t>(plan_.size());
    // 1/sqrt(fan-in) keeps every projection's output at the scale of its input.
    t.target_std = static_cast<float>(1.0 / std::sqrt(static_cast<double>(cols)));
    plan_.push_back(t);
  }
  void values(std::string name, TensorRole role, int32_t layer, uint64_t rows, uint64_t cols,
              float center, float spread) {
    TensorSpec t{std::move(name), role, layer, rows, cols, 1, WeightFormat::F32};
    t.id = static_cast<uint32_t>(plan_.size());
    t.host_values = true;
    t.center = center;
    t.spread = spread;
    plan_.push_back(t);
  }
  // A norm weight: 1 +- 0.1 as applied; stored as w with the one taken out where the model adds it.
  void norm(std::string name, TensorRole role, int32_t layer, uint64_t length, bool add_one) {
    values(std::move(name), role, layer, 1, length, add_one ? 0.0f : 1.0f, 0.1f);
  }
  std::vector<TensorSpec> take() { return std::move(plan_); }

 private:
  WeightFormat format_of(TensorRole role) const {
    if (choice_.uniform) return *choice_.uniform;
    const bool high = role == TensorRole::AttnV || role == TensorRole::FfnDown ||
                      role == TensorRole::MoeDownExps || role == TensorRole::SharedDown ||
                      role == TensorRole::Output;
    return high ? WeightFormat::Q6_K : WeightFormat::Q4_K;
  }
  const ModelConfig& c_;
  const WeightChoice& choice_;
  std::vector<TensorSpec> plan_;
};

void attention_layer(Planner& p, const ModelConfig& c, uint32_t l, const std::string& b) {
  const auto li = static_cast<int32_t>(l);
  const bool one = c.norm_add_one;
  const LayerAttention a = c.attention(l);
  const uint32_t q_dim = c.n_heads * a.head_dim, kv_dim = c.n_kv_heads * a.head_dim;
  p.norm(b + "attn_norm.weight", TensorRole::AttnNorm, li, c.hidden, one);
  p.matrix(b + "attn_q.weight", TensorRole::AttnQ, li, q_dim, c.hidden);
  if (c.attention_output_gate) {
    // GGUF (qwen35moe) fuses this with attn_q, head by head; phasebench keeps it separate so q
    // stays contiguous per head (GGUF export and import interleave and split the rows).
    p.matrix(b + "attn_q_gate.weight", TensorRole::AttnOutputGate, li, q_dim, c.hidden);
  }
  p.matrix(b + "attn_k.weight", TensorRole::AttnK, li, kv_dim, c.hidden);
  p.matrix(b + "attn_v.weight", TensorRole::AttnV, li, kv_dim, c.hidden);
  if (c.qk_norm) {
    p.norm(b + "attn_q_norm.weight", TensorRole::AttnQNorm, li, a.head_dim, one);
    p.norm(b + "attn_k_norm.weight", TensorRole::AttnKNorm, li, a.head_dim, one);
  }
  p.matrix(b + "attn_output.weight", TensorRole::AttnOutput, li, c.hidden, q_dim);
  if (c.post_norms) p.norm(b + "post_attention_norm.weight", TensorRole::AttnPostNorm, li, c.hidden, one);
}

void deltanet_layer(Planner& p, const ModelConfig& c, uint32_t l, const std::string& b) {
  const auto li = static_cast<int32_t>(l);
  const SsmShape& s = c.ssm;
  p.norm(b + "attn_norm.weight", TensorRole::AttnNorm, li, c.hidden, c.norm_add_one);
  p.matrix(b + "attn_qkv.weight", TensorRole::SsmQkv, li, s.channels(), c.hidden);
  p.matrix(b + "attn_gate.weight", TensorRole::SsmZ, li, uint64_t(s.value_heads) * s.d_v, c.hidden);
  p.matrix(b + "ssm_beta.weight", TensorRole::SsmBeta, li, s.value_heads, c.hidden);
  p.matrix(b + "ssm_alpha.weight", TensorRole::SsmAlpha, li, s.value_heads, c.hidden);
  // Conv taps of order 0.5 and decays exp(-exp(A_log) softplus(a + dt_bias)) near 0.4..0.9 keep the
  // recurrence alive without letting the state blow up.
  p.values(b + "ssm_conv1d.weight", TensorRole::SsmConv, li, s.channels(), s.conv_width, 0.0f, 0.5f);
  p.values(b + "ssm_dt.bias", TensorRole::SsmDtBias, li, 1, s.value_heads, 0.0f, 1.0f);
  p.values(b + "ssm_a", TensorRole::SsmALog, li, 1, s.value_heads, -1.0f, 0.5f);
  p.norm(b + "ssm_norm.weight", TensorRole::SsmNorm, li, s.d_v, false);
  p.matrix(b + "ssm_out.weight", TensorRole::SsmOut, li, c.hidden, uint64_t(s.value_heads) * s.d_v);
}

void ffn(Planner& p, const ModelConfig& c, uint32_t l, const std::string& b) {
  const auto li = static_cast<int32_t>(l);
  const bool one = c.norm_add_one;
  // Qwen3.5's GGUF calls the norm before the FFN post_attention_norm.
  const bool qwen35 = c.arch == Architecture::Qwen35Hybrid;
  p.norm(b + (qwen35 ? "post_attention_norm.weight" : "ffn_norm.weight"), TensorRole::FfnNorm, li, c.hidden, one);
  if (!c.has_moe()) {
    p.matrix(b + "ffn_gate.weight", TensorRole::FfnGate, li, c.ffn_hidden, c.hidden);
    p.matrix(b + "ffn_up.weight", TensorRole::FfnUp, li, c.ffn_hidden, c.hidden);
    p.matrix(b + "ffn_down.weight", TensorRole::FfnDown, li, c.hidden, c.ffn_hidden);
  } else {
    const MoeShape& m = c.moe;
    p.matrix(b + "ffn_gate_inp.weight", TensorRole::MoeRouter, li, m.n_experts, c.hidden);
    p.matrix(b + "ffn_gate_exps.weight", TensorRole::MoeGateExps, li, m.expert_ffn, c.hidden, m.n_experts);
    p.matrix(b + "ffn_up_exps.weight", TensorRole::MoeUpExps, li, m.expert_ffn, c.hidden, m.n_experts);
    p.matrix(b + "ffn_down_exps.weight", TensorRole::MoeDownExps, li, c.hidden, m.expert_ffn, m.n_experts);
    if (m.shared_expert_ffn > 0) {
      p.matrix(b + "ffn_gate_inp_shexp.weight", TensorRole::SharedGateInp, li, 1, c.hidden);
      p.matrix(b + "ffn_gate_shexp.weight", TensorRole::SharedGate, li, m.shared_expert_ffn, c.hidden);
      p.matrix(b + "ffn_up_shexp.weight", TensorRole::SharedUp, li, m.shared_expert_ffn, c.hidden);
      p.matrix(b + "ffn_down_shexp.weight", TensorRole::SharedDown, li, c.hidden, m.shared_expert_ffn);
    }
  }
  if (c.post_norms) p.norm(b + "post_ffw_norm.weight", TensorRole::FfnPostNorm, li, c.hidden, one);
}

}  // namespace

std::string WeightChoice::name() const {
  return uniform ? std::string(format_name(*uniform)) : std::string("q4_k_m");
}

std::optional<WeightChoice> parse_weight_choice(std::string_view name) {
  if (name == "q4_k_m") return WeightChoice{};
  if (auto format = parse_weight_format(name)) return WeightChoice{format};
  return std::nullopt;
}

std::vector<TensorSpec> plan_tensors(const ModelConfig& c, const WeightChoice& choice) {
  Planner p(c, choice);
  p.matrix("token_embd.weight", TensorRole::TokenEmbd, -1, c.vocab, c.hidden);
  for (uint32_t l = 0; l < c.n_layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    if (c.layer_kind(l) == LayerKind::DeltaNet) {
      deltanet_layer(p, c, l, b);
    } else {
      attention_layer(p, c, l, b);
    }
    ffn(p, c, l, b);
  }
  p.norm("output_norm.weight", TensorRole::OutputNorm, -1, c.hidden, c.norm_add_one);
  if (!c.tied_embeddings) p.matrix("output.weight", TensorRole::Output, -1, c.vocab, c.hidden);
  auto plan = p.take();
  // Embeddings are not a projection: unit scale (RMSNorm rescales them); with tied embeddings
  // they are the LM head too, and 1/sqrt(hidden) keeps the logits of order one.
  plan.front().target_std = c.tied_embeddings ? plan.front().target_std : 1.0f;
  return plan;
}

uint64_t plan_bytes(const std::vector<TensorSpec>& plan) {
  uint64_t total = 0;
  for (const auto& t : plan) total += t.bytes();
  return total;
}

}  // namespace pb
