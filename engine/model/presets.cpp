#include "engine/model/presets.h"

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
  if (arch == Architecture::Qwen3) {
    c.rope_style = RopeStyle::Neox;
    c.qk_norm = true;
    c.rms_eps = 1e-6f;
  }
  return c;
}

const std::map<std::string, std::function<ModelConfig()>, std::less<>>& table() {
  static const std::map<std::string, std::function<ModelConfig()>, std::less<>> presets = {
      {"llama3-8b",
       [] { return dense("llama3-8b", Architecture::Llama, 32, 4096, 32, 8, 128, 14336, 128256, 500000.0f); }},
      {"qwen3-8b",
       [] { return dense("qwen3-8b", Architecture::Qwen3, 36, 4096, 32, 8, 128, 12288, 151936, 1000000.0f); }},
      // Qwen3's layer (NeoX RoPE, q/k norms) at a size lavapipe runs in milliseconds.
      {"tiny-dense",
       [] { return dense("tiny-dense", Architecture::Qwen3, 3, 256, 4, 2, 64, 512, 1000, 10000.0f); }},
      // Llama's layer (normal RoPE, no q/k norms), tiny.
      {"tiny-llama",
       [] { return dense("tiny-llama", Architecture::Llama, 2, 256, 4, 1, 64, 768, 780, 10000.0f); }},
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
