#include "engine/model/model_config.h"

#include "harness/errors.h"

namespace pb {

std::string architecture_name(Architecture arch) {
  switch (arch) {
    case Architecture::Llama: return "llama";
    case Architecture::Qwen3: return "qwen3";
  }
  return "?";
}

void validate_config(const ModelConfig& c) {
  auto fail = [&](const std::string& what) {
    throw UsageError("model '" + c.name + "': " + what);
  };
  if (c.n_layers == 0 || c.hidden == 0 || c.n_heads == 0 || c.n_kv_heads == 0 || c.head_dim == 0 ||
      c.ffn_hidden == 0 || c.vocab == 0) {
    fail("every size must be positive");
  }
  if (c.n_heads % c.n_kv_heads != 0) fail("n_heads must be a multiple of n_kv_heads");
  // Inputs of every projection are quantized in blocks of 256 (Q4_K, Q6_K).
  if (c.hidden % 256 != 0) fail("hidden must be a multiple of 256, got " + std::to_string(c.hidden));
  if (c.ffn_hidden % 256 != 0) fail("ffn_hidden must be a multiple of 256");
  if (c.q_dim() % 256 != 0) fail("n_heads * head_dim must be a multiple of 256");
  if (c.head_dim % 4 != 0 || c.head_dim > 512) fail("head_dim must be a multiple of 4, at most 512");
  if (c.rope_dims > c.head_dim || c.rope_dims % 2 != 0) {
    fail("rope_dims must be even and at most head_dim");
  }
}

}  // namespace pb
