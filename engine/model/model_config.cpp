#include "engine/model/model_config.h"

#include <algorithm>

#include "harness/errors.h"

namespace pb {

std::string architecture_name(Architecture arch) {
  switch (arch) {
    case Architecture::Llama: return "llama";
    case Architecture::Qwen3: return "qwen3";
    case Architecture::Qwen3Moe: return "qwen3moe";
    case Architecture::Qwen35Hybrid: return "qwen35moe";
    case Architecture::Gemma: return "gemma3";
  }
  return "?";
}

LayerKind ModelConfig::layer_kind(uint32_t layer) const {
  if (full_attention_interval > 0) {
    return (layer + 1) % full_attention_interval == 0 ? LayerKind::Attention : LayerKind::DeltaNet;
  }
  if (sliding_window > 0 && global_interval > 0) {
    return (layer + 1) % global_interval == 0 ? LayerKind::Attention : LayerKind::SlidingAttention;
  }
  return LayerKind::Attention;
}

LayerAttention ModelConfig::attention(uint32_t layer) const {
  const LayerKind kind = layer_kind(layer);
  if (kind == LayerKind::SlidingAttention) return {head_dim, sliding_window, rope_theta, rope_dims};
  if (sliding_window > 0 && kind == LayerKind::Attention) {  // a Gemma global layer
    return {global_head_dim, 0, global_rope_theta, global_head_dim};
  }
  return {head_dim, 0, rope_theta, rope_dims};
}

uint32_t ModelConfig::max_q_dim() const {
  uint32_t m = 0;
  for (uint32_t l = 0; l < n_layers; ++l) {
    if (layer_kind(l) != LayerKind::DeltaNet) m = std::max(m, q_dim(l));
  }
  return m;
}

uint32_t ModelConfig::max_kv_dim() const {
  uint32_t m = 0;
  for (uint32_t l = 0; l < n_layers; ++l) {
    if (layer_kind(l) != LayerKind::DeltaNet) m = std::max(m, kv_dim(l));
  }
  return m;
}

void validate_config(const ModelConfig& c) {
  auto fail = [&](const std::string& what) { throw UsageError("model '" + c.name + "': " + what); };
  if (c.n_layers == 0 || c.hidden == 0 || c.n_heads == 0 || c.n_kv_heads == 0 || c.head_dim == 0 ||
      c.vocab == 0) {
    fail("every size must be positive");
  }
  if (c.n_heads % c.n_kv_heads != 0) fail("n_heads must be a multiple of n_kv_heads");
  // Inputs of every projection are quantized in blocks of 256 (Q4_K, Q6_K).
  if (c.hidden % 256 != 0) fail("hidden must be a multiple of 256, got " + std::to_string(c.hidden));
  if (!c.has_moe() && (c.ffn_hidden == 0 || c.ffn_hidden % 256 != 0)) {
    fail("ffn_hidden must be a positive multiple of 256");
  }
  if (c.has_moe() && (c.moe.top_k == 0 || c.moe.top_k > c.moe.n_experts || c.moe.expert_ffn % 256 != 0 ||
                      c.moe.shared_expert_ffn % 256 != 0)) {
    fail("MoE: top_k must be in 1..n_experts and the expert widths multiples of 256");
  }
  for (uint32_t l = 0; l < c.n_layers; ++l) {
    if (c.layer_kind(l) == LayerKind::DeltaNet) continue;
    const LayerAttention a = c.attention(l);
    if (c.n_heads * a.head_dim % 256 != 0) fail("n_heads * head_dim must be a multiple of 256");
    if (a.head_dim % 4 != 0 || a.head_dim > 512) fail("head_dim must be a multiple of 4, at most 512");
    if (a.rope_dims > a.head_dim || a.rope_dims % 2 != 0) fail("rope_dims must be even and at most head_dim");
  }
  if (c.full_attention_interval > 0) {
    const SsmShape& s = c.ssm;
    if (s.key_heads == 0 || s.value_heads % s.key_heads != 0 || s.d_k == 0 || s.d_v == 0 ||
        s.value_heads * s.d_v % 256 != 0) {
      fail("SSM: value_heads must be a multiple of key_heads and value_heads * d_v of 256");
    }
  }
  if (c.sliding_window > 0 && (c.global_interval == 0 || c.global_head_dim == 0)) {
    fail("sliding-window models need global_interval and global_head_dim");
  }
}

}  // namespace pb
