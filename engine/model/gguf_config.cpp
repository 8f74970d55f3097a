#include "engine/model/gguf_config.h"

#include <cmath>
#include <filesystem>

#include "engine/model/gguf_metadata_reader.h"
#include "harness/errors.h"

namespace pb {
namespace {

using gguf::GgufValue;

// Written as the training context: llama.cpp requires the key and sizes its default context
// from it; phasebench itself sizes the context from the workload and ignores it on import.
constexpr uint32_t kExportContextLength = 8192;

// What the architecture fixes, as the presets set it (presets.cpp).
ModelConfig architecture_defaults(Architecture arch) {
  ModelConfig c;
  c.arch = arch;
  if (arch != Architecture::Llama) {
    c.rope_style = RopeStyle::Neox;
    c.qk_norm = true;
    c.rms_eps = 1e-6f;
  }
  if (arch == Architecture::Qwen35Hybrid) {
    c.attention_output_gate = true;
    c.norm_add_one = true;
  }
  if (arch == Architecture::Gemma) {
    c.norm_add_one = true;
    c.post_norms = true;
    c.ffn_activation = GluActivation::GeluTanh;
  }
  return c;
}

void read_moe(const GgufMetadataReader& k, ModelConfig& c) {
  c.moe.n_experts = k.u32("expert_count");
  c.moe.top_k = k.u32("expert_used_count");
  c.moe.expert_ffn = k.u32("expert_feed_forward_length");
  c.moe.shared_expert_ffn = k.u32_or("expert_shared_feed_forward_length", 0);
  c.moe.norm_topk = k.bool_or("expert_weights_norm", true);
  if (c.moe.n_experts == 0) k.fail("expert_count", "must be positive for a mixture-of-experts model");
}

void read_ssm(const GgufMetadataReader& k, ModelConfig& c) {
  c.full_attention_interval = k.u32_or("full_attention_interval", 4);
  if (c.full_attention_interval == 0) k.fail("full_attention_interval", "must be positive");
  c.ssm.conv_width = k.u32("ssm.conv_kernel");
  c.ssm.d_k = k.u32("ssm.state_size");
  c.ssm.key_heads = k.u32("ssm.group_count");
  c.ssm.value_heads = k.u32("ssm.time_step_rank");
  const uint32_t inner = k.u32("ssm.inner_size");
  if (c.ssm.value_heads == 0 || inner % c.ssm.value_heads != 0) {
    k.fail("ssm.inner_size", std::to_string(inner) + " is not a multiple of ssm.time_step_rank (" +
                                 std::to_string(c.ssm.value_heads) + " value heads)");
  }
  c.ssm.d_v = inner / c.ssm.value_heads;
  // llama.cpp may list the recurrent layers instead of giving the interval; phasebench runs
  // only the every-Nth pattern, so a list must be that pattern.
  if (const auto layers = k.bool_array("attention.recurrent_layers")) {
    for (uint32_t l = 0; l < c.n_layers && l < layers->size(); ++l) {
      if ((*layers)[l] != (c.layer_kind(l) == LayerKind::DeltaNet)) {
        k.fail("attention.recurrent_layers", "layer " + std::to_string(l) +
                                                 " breaks the every-" + std::to_string(c.full_attention_interval) +
                                                 "th full-attention pattern, the only one phasebench runs");
      }
    }
  }
}

void read_gemma(const GgufMetadataReader& k, ModelConfig& c) {
  c.sliding_window = k.u32_or("attention.sliding_window", 0);
  c.global_rope_theta = k.f32_or("rope.freq_base", 1000000.0f);
  c.rope_theta = k.f32_or("rope.freq_base_swa", 10000.0f);
  c.global_interval = k.phasebench_u32_or("global_interval", 6);
  c.global_head_dim = k.phasebench_u32_or("global_head_dim", c.head_dim);
  c.embed_scale = k.phasebench_f32_or("embed_scale", std::sqrt(static_cast<float>(c.hidden)));
  // Without sliding layers every layer is global, and attention() gives them rope_theta.
  if (c.sliding_window == 0) c.rope_theta = c.global_rope_theta;
}

uint32_t read_vocab(const gguf::GgufFile& file, const GgufMetadataReader& k) {
  if (k.has("vocab_size")) return k.u32("vocab_size");
  if (const GgufValue* tokens = file.find("tokenizer.ggml.tokens")) {
    if (tokens->type() == gguf::GgufType::ARRAY) return static_cast<uint32_t>(tokens->as_array().size());
  }
  if (const auto* embd = file.find_tensor("token_embd.weight"); embd && embd->dims.size() >= 2) {
    return static_cast<uint32_t>(embd->dims[1]);
  }
  k.fail("vocab_size", "is missing, and so are tokenizer.ggml.tokens and token_embd.weight");
}

}  // namespace

std::optional<Architecture> architecture_from_gguf_name(std::string_view name) {
  for (Architecture a : {Architecture::Llama, Architecture::Qwen3, Architecture::Qwen3Moe,
                         Architecture::Qwen35Hybrid, Architecture::Gemma}) {
    if (architecture_name(a) == name) return a;
  }
  return std::nullopt;
}

ModelConfig config_from_gguf(const gguf::GgufFile& file, std::vector<std::string>* notes) {
  const std::string arch_name = GgufMetadataReader::architecture(file);
  const auto arch = architecture_from_gguf_name(arch_name);
  if (!arch) {
    throw UsageError(file.name() + ": general.architecture is \"" + arch_name +
                     "\", which phasebench does not run; it runs " + std::string(kGgufArchitectures));
  }
  const GgufMetadataReader k(file, arch_name);
  ModelConfig c = architecture_defaults(*arch);
  const GgufValue* name = file.find("general.name");
  c.name = name && name->type() == gguf::GgufType::STRING ? name->as_string()
                                                           : std::filesystem::path(file.name()).stem().string();
  const uint32_t blocks = k.u32("block_count");
  // Multi-token-prediction blocks (Qwen3.5) come after the main stack; the forward pass skips them.
  const uint32_t mtp = k.u32_or("nextn_predict_layers", 0);
  if (mtp >= blocks) k.fail("nextn_predict_layers", "leaves no layers of the " + std::to_string(blocks) + " blocks");
  c.n_layers = blocks - mtp;
  c.hidden = k.u32("embedding_length");
  c.n_heads = k.u32("attention.head_count");
  c.n_kv_heads = k.u32_or("attention.head_count_kv", c.n_heads);
  if (c.n_heads == 0) k.fail("attention.head_count", "must be positive");
  c.head_dim = k.u32_or("attention.key_length", c.hidden / c.n_heads);
  if (k.u32_or("attention.value_length", c.head_dim) != c.head_dim) {
    k.fail("attention.value_length", "differs from attention.key_length; phasebench runs equal q/k/v head sizes");
  }
  c.rms_eps = k.f32_or("attention.layer_norm_rms_epsilon", c.rms_eps);
  c.rope_theta = k.f32_or("rope.freq_base", c.rope_theta);
  c.rope_dims = k.u32_or("rope.dimension_count", c.head_dim);
  c.vocab = read_vocab(file, k);
  if (*arch == Architecture::Qwen3Moe || *arch == Architecture::Qwen35Hybrid) {
    read_moe(k, c);
  } else {
    c.ffn_hidden = k.u32("feed_forward_length");
  }
  if (*arch == Architecture::Qwen35Hybrid) read_ssm(k, c);
  if (*arch == Architecture::Gemma) read_gemma(k, c);
  c.tied_embeddings = file.find_tensor("output.weight") == nullptr;
  if (notes) {
    const GgufValue* scaling = file.find(arch_name + ".rope.scaling.type");
    if (scaling && scaling->type() == gguf::GgufType::STRING && scaling->as_string() != "none") {
      notes->push_back("RoPE scaling (" + arch_name + ".rope.scaling.type = " + scaling->as_string() +
                       ") is ignored: phasebench applies plain RoPE");
    }
  }
  try {
    validate_config(c);
  } catch (const UsageError& e) {
    throw UsageError(file.name() + ": " + e.what());
  }
  return c;
}

void add_config_metadata(gguf::GgufWriter& w, const ModelConfig& c) {
  const std::string a = architecture_name(c.arch);
  auto u32 = [](uint64_t v) { return GgufValue(static_cast<uint32_t>(v)); };
  w.add("general.architecture", a);
  w.add("general.name", c.name);
  w.add(a + ".context_length", u32(kExportContextLength));
  w.add(a + ".vocab_size", u32(c.vocab));
  w.add(a + ".block_count", u32(c.n_layers));
  w.add(a + ".embedding_length", u32(c.hidden));
  w.add(a + ".attention.head_count", u32(c.n_heads));
  w.add(a + ".attention.head_count_kv", u32(c.n_kv_heads));
  w.add(a + ".attention.key_length", u32(c.head_dim));
  w.add(a + ".attention.value_length", u32(c.head_dim));
  w.add(a + ".attention.layer_norm_rms_epsilon", GgufValue(c.rms_eps));
  w.add(a + ".rope.dimension_count", u32(c.rope_dims));
  if (c.has_moe()) {
    w.add(a + ".expert_count", u32(c.moe.n_experts));
    w.add(a + ".expert_used_count", u32(c.moe.top_k));
    w.add(a + ".expert_feed_forward_length", u32(c.moe.expert_ffn));
    if (c.moe.has_shared_expert()) w.add(a + ".expert_shared_feed_forward_length", u32(c.moe.shared_expert_ffn));
    w.add(a + ".expert_weights_norm", GgufValue(c.moe.norm_topk));
  } else {
    w.add(a + ".feed_forward_length", u32(c.ffn_hidden));
  }
  if (c.arch == Architecture::Gemma) {
    w.add(a + ".rope.freq_base", GgufValue(c.global_rope_theta));
    w.add(a + ".rope.freq_base_swa", GgufValue(c.rope_theta));
    w.add(a + ".attention.sliding_window", u32(c.sliding_window));
    w.add("phasebench.global_interval", u32(c.global_interval));
    w.add("phasebench.global_head_dim", u32(c.global_head_dim));
    w.add("phasebench.embed_scale", GgufValue(c.embed_scale));
  } else {
    w.add(a + ".rope.freq_base", GgufValue(c.rope_theta));
  }
  if (c.arch == Architecture::Qwen35Hybrid) {
    w.add(a + ".full_attention_interval", u32(c.full_attention_interval));
    w.add(a + ".ssm.conv_kernel", u32(c.ssm.conv_width));
    w.add(a + ".ssm.state_size", u32(c.ssm.d_k));
    w.add(a + ".ssm.group_count", u32(c.ssm.key_heads));
    w.add(a + ".ssm.time_step_rank", u32(c.ssm.value_heads));
    w.add(a + ".ssm.inner_size", u32(c.ssm.value_dim()));
    // llama.cpp's qwen35moe requires the multimodal RoPE sections. For text every position
    // component is the token's position, so any split of the rope_dims / 2 frequency pairs
    // computes plain NeoX RoPE; this is Qwen3.5's 11/11/10 split scaled to the model.
    const int32_t pairs = static_cast<int32_t>(c.rope_dims / 2);
    w.add(a + ".rope.dimension_sections", std::vector<int32_t>{(pairs + 2) / 3, (pairs + 1) / 3, pairs / 3, 0});
  }
}

}  // namespace pb
