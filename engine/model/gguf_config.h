// The model config <-> GGUF metadata, in llama.cpp's key conventions (src/llama-arch.cpp):
// `general.architecture` names the architecture and every shape key is `<arch>.<key>`.
//
//   ModelConfig                 key (A = the architecture)              default on import
//   name                        general.name                            the file's stem
//   n_layers                    A.block_count - A.nextn_predict_layers  (required; MTP 0)
//   hidden                      A.embedding_length                      (required)
//   n_heads, n_kv_heads         A.attention.head_count, .head_count_kv  (required), n_heads
//   head_dim                    A.attention.key_length (= .value_length) hidden / n_heads
//   rms_eps                     A.attention.layer_norm_rms_epsilon      the architecture's
//   rope_theta                  A.rope.freq_base (gemma3: .freq_base_swa) 10000
//   rope_dims                   A.rope.dimension_count                  head_dim
//   vocab                       A.vocab_size, else tokenizer.ggml.tokens' count, else token_embd
//   ffn_hidden (dense)          A.feed_forward_length                   (required)
//   moe.n_experts, .top_k       A.expert_count, A.expert_used_count     (required)
//   moe.expert_ffn              A.expert_feed_forward_length            (required)
//   moe.shared_expert_ffn       A.expert_shared_feed_forward_length     0
//   moe.norm_topk               A.expert_weights_norm                   true
//   full_attention_interval     A.full_attention_interval               4 (llama.cpp's)
//   ssm.conv_width, .d_k        A.ssm.conv_kernel, A.ssm.state_size     (required)
//   ssm.key_heads, .value_heads A.ssm.group_count, A.ssm.time_step_rank (required)
//   ssm.d_v                     A.ssm.inner_size / A.ssm.time_step_rank (required)
//   sliding_window              A.attention.sliding_window              0 = no sliding layers
//   global_rope_theta (gemma3)  A.rope.freq_base                        1e6
//   global_interval             phasebench.global_interval              6 (llama.cpp's gemma3)
//   global_head_dim             phasebench.global_head_dim              head_dim
//   embed_scale                 phasebench.embed_scale                  sqrt(hidden)
//   tied_embeddings             (no output.weight tensor)
//
// gemma3's rope.freq_base is the global layers' base, as in llama.cpp (which hard-codes 10000
// for the sliding layers); phasebench writes the sliding base as rope.freq_base_swa, a key
// llama.cpp defines for other architectures. Fields llama.cpp has no key for are `phasebench.*`.
// What is fixed per architecture (RoPE style, q/k norms, (1 + w) norms, post norms, GeGLU,
// the gated attention) comes from the architecture name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/gguf/gguf_reader.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/model/model_config.h"

namespace pb {

inline constexpr std::string_view kGgufArchitectures = "llama, qwen3, qwen3moe, qwen35moe, gemma3";

// The architecture llama.cpp calls `name`, or nullopt when phasebench does not run it.
std::optional<Architecture> architecture_from_gguf_name(std::string_view name);

// The model config a GGUF file describes, validated (validate_config). Throws UsageError naming
// the file and the key for a missing or mistyped key, an architecture phasebench does not run,
// or a shape it cannot run; `notes` (optional) receives what phasebench ignores (rope scaling).
ModelConfig config_from_gguf(const gguf::GgufFile& file, std::vector<std::string>* notes = nullptr);

// Adds the metadata that describes `config` (general.* and the architecture's keys) to `writer`.
// Throws UsageError for a config that llama.cpp's conventions cannot express.
void add_config_metadata(gguf::GgufWriter& writer, const ModelConfig& config);

}  // namespace pb
