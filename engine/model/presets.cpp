#include "engine/model/presets.h"

#include <cmath>
#include <functional>
#include <map>

#include "harness/errors.h"

namespace pb {
namespace {

ModelConfig dense(std::string name, Architecture arch, uint32_t layers, uint32_t hidden,
                  uint32_t heads, uint32_t kv_heads, uint32_t head_dim, uint32_t ffn,
                  uint32_t vocab, float theta) {
  ModelConfig c;
  c.name = std::move(name);
  c.arch = arch;
  c.n_layers = layers;
  c.hidden = hidden;
  c.n_heads = heads;
  c.n_kv_heads = kv_heads;
  c.head_dim = head_dim;
  c.ffn_hidden = ffn;
  c.vocab = vocab;
  c.rope_theta = theta;
  c.rope_dims = head_dim;
  if (arch != Architecture::Llama) {
    c.rope_style = RopeStyle::Neox;
    c.qk_norm = true;
    c.rms_eps = 1e-6f;
  }
  return c;
}

// Qwen3's attention with a MoE FFN in every layer (Qwen3-30B-A3B).
ModelConfig qwen3_moe(std::string name, uint32_t layers, uint32_t hidden, uint32_t heads,
                      uint32_t kv_heads, uint32_t head_dim, MoeShape moe, uint32_t vocab) {
  ModelConfig c = dense(std::move(name), Architecture::Qwen3Moe, layers, hidden, heads, kv_heads,
                        head_dim, 0, vocab, 1000000.0f);
  c.moe = moe;
  return c;
}

// Qwen3.5-35B-A3B: every `interval`th layer gated full attention with partial RoPE, the rest
// Gated DeltaNet; a MoE FFN with a shared expert everywhere; zero-centered (1 + w) norms.
ModelConfig qwen35(std::string name, uint32_t layers, uint32_t interval, uint32_t hidden,
                   uint32_t heads, uint32_t kv_heads, uint32_t head_dim, uint32_t rope_dims,
                   SsmShape ssm, MoeShape moe, uint32_t vocab) {
  ModelConfig c = dense(std::move(name), Architecture::Qwen35Hybrid, layers, hidden, heads, kv_heads,
                        head_dim, 0, vocab, 10000000.0f);
  c.rope_dims = rope_dims;
  c.full_attention_interval = interval;
  c.attention_output_gate = true;
  c.norm_add_one = true;
  c.ssm = ssm;
  c.moe = moe;
  return c;
}

// Gemma: sliding-window layers with a global layer every `interval`th, GeGLU, (1 + w) norms
// before and after attention and FFN, embeddings scaled by sqrt(hidden), tied LM head.
ModelConfig gemma(std::string name, uint32_t layers, uint32_t hidden, uint32_t heads, uint32_t kv_heads,
                  uint32_t head_dim, uint32_t global_head_dim, uint32_t window, uint32_t interval,
                  uint32_t ffn, uint32_t vocab) {
  ModelConfig c = dense(std::move(name), Architecture::Gemma, layers, hidden, heads, kv_heads, head_dim,
                        ffn, vocab, 10000.0f);
  c.sliding_window = window;
  c.global_interval = interval;
  c.global_head_dim = global_head_dim;
  c.global_rope_theta = 1000000.0f;
  c.norm_add_one = true;
  c.post_norms = true;
  c.embed_scale = std::sqrt(static_cast<float>(hidden));
  c.ffn_activation = GluActivation::GeluTanh;
  c.tied_embeddings = true;
  return c;
}

using Table = std::map<std::string, std::function<ModelConfig()>, std::less<>>;

const Table& table() {
  static const Table presets = {
      {"llama3-8b", [] { return dense("llama3-8b", Architecture::Llama, 32, 4096, 32, 8, 128, 14336, 128256, 500000.0f); }},
      {"qwen3-8b", [] { return dense("qwen3-8b", Architecture::Qwen3, 36, 4096, 32, 8, 128, 12288, 151936, 1000000.0f); }},
      {"qwen3-30b-a3b", [] { return qwen3_moe("qwen3-30b-a3b", 48, 2048, 32, 4, 128, {128, 8, 768, 0, true}, 151936); }},
      {"qwen35-35b-a3b",
       [] { return qwen35("qwen35-35b-a3b", 40, 4, 2048, 16, 2, 256, 64, {16, 32, 128, 128, 4}, {256, 8, 512, 512, true}, 248320); }},
      {"gemma4-31b", [] { return gemma("gemma4-31b", 60, 5376, 32, 16, 256, 512, 1024, 6, 21504, 262144); }},
      // The same architectures at sizes lavapipe runs in milliseconds, for tests and the CPU reference.
      {"tiny-dense", [] { return dense("tiny-dense", Architecture::Qwen3, 3, 256, 4, 2, 64, 512, 1000, 10000.0f); }},
      {"tiny-llama", [] { return dense("tiny-llama", Architecture::Llama, 2, 256, 4, 1, 64, 768, 780, 10000.0f); }},
      {"tiny-moe", [] { return qwen3_moe("tiny-moe", 2, 256, 4, 2, 64, {8, 2, 256, 0, true}, 1000); }},
      {"tiny-hybrid",
       [] { return qwen35("tiny-hybrid", 4, 4, 256, 4, 1, 128, 32, {2, 4, 64, 64, 4}, {16, 4, 256, 256, true}, 1000); }},
      // A Qwen3.5 hidden and shared expert of 512 (8 K steps of 64): a matmul chunk's shared
      // gate/up and down split their K on the matrix units, and the SwiGLU, the sigmoid gate and
      // the residual add move into the reductions (matmul_split.h).
      {"tiny-hybrid-wide",
       [] { return qwen35("tiny-hybrid-wide", 2, 2, 512, 4, 1, 128, 32, {2, 4, 64, 64, 4}, {8, 2, 256, 512, true}, 1000); }},
      // Window 8 with 6 layers: a prompt of 12 crosses the window, and layer 5 is global.
      {"tiny-gemma", [] { return gemma("tiny-gemma", 6, 256, 4, 2, 64, 128, 8, 6, 512, 1000); }},
      // An FFN wider than kIntdotWideCols (8448 > 8192): int8 prefill splits ffn_down's K across
      // workgroups where the device has the int8 matrix kernel.
      {"tiny-wide", [] { return dense("tiny-wide", Architecture::Llama, 2, 256, 4, 1, 64, 8448, 780, 10000.0f); }},
  };
  return presets;
}

}  // namespace

ModelConfig preset(std::string_view name) {
  const auto& presets = table();
  const auto it = presets.find(name);
  if (it == presets.end()) {
    std::string known;
    for (const auto& [n, make] : presets) known += (known.empty() ? "" : ", ") + n;
    throw UsageError("unknown model preset '" + std::string(name) + "'; the presets are: " + known);
  }
  ModelConfig config = it->second();
  validate_config(config);
  return config;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& [n, make] : table()) names.push_back(n);
  return names;
}

}  // namespace pb
