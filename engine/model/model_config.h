// The shape of a model: what presets and GGUF metadata fill in, and what the forward pass, the
// weights and the CPU reference read. Every field states its unit or shape. Layers can differ:
// Gemma interleaves sliding-window and global attention layers of different head sizes, and the
// Qwen3.5 hybrid interleaves Gated DeltaNet (SSM) layers with gated attention layers.
#pragma once

#include <cstdint>
#include <string>

#include "engine/ops/glu_op.h"           // GluActivation
#include "engine/ops/moe_shape.h"        // MoeShape
#include "engine/ops/qk_norm_rope_op.h"  // RopeStyle
#include "engine/ops/ssm_shape.h"        // SsmShape

namespace pb {

enum class Architecture {
  Llama,         // dense, normal (adjacent-pair) RoPE
  Qwen3,         // dense, NeoX RoPE, per-head q/k RMSNorm
  Qwen3Moe,      // Qwen3's attention with a mixture-of-experts FFN in every layer
  Qwen35Hybrid,  // Gated DeltaNet layers and gated full-attention layers, MoE FFN with a shared expert
  Gemma,         // sliding-window and global attention, GeGLU, (1 + w) norms before and after
};

enum class LayerKind {
  Attention,         // full (global) causal attention
  SlidingAttention,  // attention over the last sliding_window positions
  DeltaNet,          // Gated DeltaNet linear attention (an SSM layer)
};

// The attention geometry of one layer (it differs between Gemma's local and global layers).
struct LayerAttention {
  uint32_t head_dim = 0;     // per head
  uint32_t window = 0;       // positions a query sees; 0 = all
  float rope_theta = 0;      // RoPE base frequency
  uint32_t rope_dims = 0;    // rotated dimensions per head
};

struct ModelConfig {
  std::string name;                    // preset name or the GGUF's general.name
  Architecture arch = Architecture::Llama;
  uint32_t n_layers = 0;               // blocks
  uint32_t hidden = 0;                 // residual stream width
  uint32_t n_heads = 0;                // query heads
  uint32_t n_kv_heads = 0;             // key/value heads (GQA groups)
  uint32_t head_dim = 0;               // per head (of the sliding-window layers in Gemma)
  uint32_t ffn_hidden = 0;             // dense FFN inner width (0 with a MoE FFN)
  uint32_t vocab = 0;                  // embedding rows and LM-head rows
  float rms_eps = 1e-5f;               // RMSNorm epsilon
  float rope_theta = 10000.0f;         // RoPE base frequency (of the sliding-window layers in Gemma)
  RopeStyle rope_style = RopeStyle::Normal;
  uint32_t rope_dims = 0;              // rotated dimensions per head (< head_dim: partial rotary)
  bool qk_norm = false;                // per-head RMSNorm of q and k before RoPE
  bool tied_embeddings = false;        // the LM head reads token_embd (no output.weight)

  // Gemma
  uint32_t sliding_window = 0;         // positions a sliding-window layer sees; 0 = no such layers
  uint32_t global_interval = 0;        // every Nth layer is global attention (6 in Gemma 4)
  uint32_t global_head_dim = 0;        // head dim of global layers (512 in Gemma 4)
  float global_rope_theta = 0;         // RoPE base of global layers
  bool norm_add_one = false;           // RMSNorm weights applied as (1 + w)
  bool post_norms = false;             // RMSNorm after the attention and FFN outputs too
  float embed_scale = 1.0f;            // embeddings multiplied by this (sqrt(hidden) in Gemma)
  GluActivation ffn_activation = GluActivation::Silu;

  // Qwen3.5 hybrid
  uint32_t full_attention_interval = 0;  // every Nth layer is full attention, the rest DeltaNet
  bool attention_output_gate = false;    // attention output times sigmoid(a gate projection)
  SsmShape ssm;                          // Gated DeltaNet shape (DeltaNet layers only)

  // Mixture of experts (n_experts == 0: a dense FFN)
  MoeShape moe;

  LayerKind layer_kind(uint32_t layer) const;
  LayerAttention attention(uint32_t layer) const;  // of an attention layer
  bool has_moe() const { return moe.n_experts > 0; }
  uint32_t q_dim(uint32_t layer) const { return n_heads * attention(layer).head_dim; }
  uint32_t kv_dim(uint32_t layer) const { return n_kv_heads * attention(layer).head_dim; }
  uint32_t max_q_dim() const;   // over the attention layers
  uint32_t max_kv_dim() const;
};

std::string architecture_name(Architecture arch);  // "llama", "qwen3", "qwen3moe", "qwen35moe", "gemma3"

// Throws UsageError naming the field when the shape is inconsistent (heads not dividing, widths
// not a multiple of the quantization block, ...).
void validate_config(const ModelConfig& config);

}  // namespace pb
