// The shape of a model: what presets and GGUF metadata fill in, and what the forward pass, the
// weights and the CPU reference read. Every field states its unit or shape.
#pragma once

#include <cstdint>
#include <string>

#include "engine/ops/qk_norm_rope_op.h"  // RopeStyle

namespace pb {

enum class Architecture {
  Llama,  // dense, normal (adjacent-pair) RoPE
  Qwen3,  // dense, NeoX RoPE, per-head q/k RMSNorm
};

struct ModelConfig {
  std::string name;                    // preset name or the GGUF's general.name
  Architecture arch = Architecture::Llama;
  uint32_t n_layers = 0;               // transformer blocks
  uint32_t hidden = 0;                 // residual stream width
  uint32_t n_heads = 0;                // query heads
  uint32_t n_kv_heads = 0;             // key/value heads (GQA groups)
  uint32_t head_dim = 0;               // per head
  uint32_t ffn_hidden = 0;             // dense FFN inner width
  uint32_t vocab = 0;                  // embedding rows and LM-head rows
  float rms_eps = 1e-5f;               // RMSNorm epsilon
  float rope_theta = 10000.0f;         // RoPE base frequency
  RopeStyle rope_style = RopeStyle::Normal;
  uint32_t rope_dims = 0;              // rotated dimensions per head (== head_dim: full rotary)
  bool qk_norm = false;                // per-head RMSNorm of q and k before RoPE
  bool tied_embeddings = false;        // LM head reads token_embd (no output.weight)

  uint32_t q_dim() const { return n_heads * head_dim; }      // width of q and attention output
  uint32_t kv_dim() const { return n_kv_heads * head_dim; }  // width of k and v
};

std::string architecture_name(Architecture arch);  // "llama", "qwen3" (GGUF general.architecture)

// Throws UsageError naming the field when the shape is inconsistent (heads not dividing, widths
// not a multiple of the quantization block, ...).
void validate_config(const ModelConfig& config);

}  // namespace pb
