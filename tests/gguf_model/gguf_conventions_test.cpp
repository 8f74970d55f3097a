// Exported files follow llama.cpp's conventions for their architecture: key names and types,
// tensor names, ggml dims (ne0 = the row length) and types, one model per architecture; and the
// tensor bytes are exactly the synthetic bytes phasebench generates (through the same layout
// rules the loader uses to read them back).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "engine/model/gguf_config.h"
#include "engine/model/gguf_export.h"
#include "engine/model/gguf_plan.h"
#include "engine/model/host_weights.h"
#include "engine/model/presets.h"
#include "engine/quant/weight_format.h"
#include "tests/gguf_model/gguf_model_test_util.h"

namespace pb::test {
namespace {

using gguf::GgmlType;
using gguf::GgufFile;

GgufFile exported(const std::string& preset_name, const WeightChoice& weights = {}, uint32_t seed = 1) {
  return GgufFile::from_buffer(gguf_export_writer(preset(preset_name), weights, seed).to_bytes(), preset_name);
}

void expect_tensor(const GgufFile& f, const std::string& name, std::vector<uint64_t> dims, GgmlType type) {
  const auto* t = f.find_tensor(name);
  ASSERT_NE(t, nullptr) << name;
  EXPECT_EQ(t->dims, dims) << name;
  EXPECT_EQ(t->ggml_type, static_cast<uint32_t>(type)) << name << " is " << t->type_name();
}

void expect_u32(const GgufFile& f, const std::string& key, uint32_t value) {
  const auto* v = f.find(key);
  ASSERT_NE(v, nullptr) << key;
  EXPECT_EQ(v->type(), gguf::GgufType::UINT32) << key;
  EXPECT_EQ(f.get_u32(key), value) << key;
}

void expect_f32(const GgufFile& f, const std::string& key, float value) {
  ASSERT_NE(f.find(key), nullptr) << key;
  EXPECT_EQ(f.get_f32(key), value) << key;
}

void expect_common(const GgufFile& f, const std::string& arch, const ModelConfig& c) {
  EXPECT_EQ(f.version(), 3u);
  EXPECT_EQ(f.alignment(), 32u);
  EXPECT_EQ(f.get_string("general.architecture"), arch);
  EXPECT_EQ(f.get_string("general.name"), c.name);
  expect_u32(f, arch + ".block_count", c.n_layers);
  expect_u32(f, arch + ".embedding_length", c.hidden);
  expect_u32(f, arch + ".attention.head_count", c.n_heads);
  expect_u32(f, arch + ".attention.head_count_kv", c.n_kv_heads);
  expect_u32(f, arch + ".attention.key_length", c.head_dim);
  expect_u32(f, arch + ".attention.value_length", c.head_dim);
  expect_u32(f, arch + ".rope.dimension_count", c.rope_dims);
  expect_u32(f, arch + ".vocab_size", c.vocab);
  expect_f32(f, arch + ".attention.layer_norm_rms_epsilon", c.rms_eps);
  ASSERT_NE(f.find(arch + ".context_length"), nullptr);
  // The placeholder tokenizer llama.cpp needs to open the file.
  EXPECT_EQ(f.get_string("tokenizer.ggml.model"), "llama");
  const auto& tokens = f.get_array<std::string>("tokenizer.ggml.tokens");
  ASSERT_EQ(tokens.size(), c.vocab);
  EXPECT_EQ(tokens[1], "<s>");
  EXPECT_EQ(tokens[3 + 0x0A], "<0x0A>");
  EXPECT_EQ(tokens[c.vocab - 1], "<t" + std::to_string(c.vocab - 1) + ">");
  EXPECT_EQ(f.get_array<float>("tokenizer.ggml.scores").size(), c.vocab);
  EXPECT_EQ(f.get_array<int32_t>("tokenizer.ggml.token_type").size(), c.vocab);
  expect_u32(f, "tokenizer.ggml.bos_token_id", 1);
  expect_u32(f, "tokenizer.ggml.eos_token_id", 2);
  // Every norm is F32 and 1-D.
  expect_tensor(f, "output_norm.weight", {c.hidden}, GgmlType::F32);
  expect_tensor(f, "blk.0.attn_norm.weight", {c.hidden}, GgmlType::F32);
}

TEST(GgufConventions, Llama) {
  const GgufFile f = exported("tiny-llama");
  expect_common(f, "llama", preset("tiny-llama"));
  expect_u32(f, "llama.feed_forward_length", 768);
  expect_f32(f, "llama.rope.freq_base", 10000.0f);
  expect_tensor(f, "token_embd.weight", {256, 780}, GgmlType::Q4_K);
  expect_tensor(f, "output.weight", {256, 780}, GgmlType::Q6_K);
  expect_tensor(f, "blk.0.attn_q.weight", {256, 256}, GgmlType::Q4_K);
  expect_tensor(f, "blk.0.attn_k.weight", {256, 64}, GgmlType::Q4_K);
  expect_tensor(f, "blk.0.attn_v.weight", {256, 64}, GgmlType::Q6_K);
  expect_tensor(f, "blk.0.attn_output.weight", {256, 256}, GgmlType::Q4_K);
  expect_tensor(f, "blk.1.ffn_norm.weight", {256}, GgmlType::F32);
  expect_tensor(f, "blk.1.ffn_gate.weight", {256, 768}, GgmlType::Q4_K);
  expect_tensor(f, "blk.1.ffn_up.weight", {256, 768}, GgmlType::Q4_K);
  expect_tensor(f, "blk.1.ffn_down.weight", {768, 256}, GgmlType::Q6_K);
  EXPECT_EQ(f.find_tensor("blk.0.attn_q_norm.weight"), nullptr);
  EXPECT_EQ(f.tensors().size(), 3u + 2 * 9);  // embd, output norm, output; 9 per layer
}

TEST(GgufConventions, Qwen3WithUniformWeights) {
  const GgufFile f = exported("tiny-dense", *parse_weight_choice("q8_0"));
  expect_common(f, "qwen3", preset("tiny-dense"));
  expect_u32(f, "general.file_type", 7);
  expect_tensor(f, "blk.2.attn_q_norm.weight", {64}, GgmlType::F32);
  expect_tensor(f, "blk.2.attn_k_norm.weight", {64}, GgmlType::F32);
  expect_tensor(f, "blk.2.attn_v.weight", {256, 128}, GgmlType::Q8_0);
  expect_tensor(f, "output.weight", {256, 1000}, GgmlType::Q8_0);
}

TEST(GgufConventions, Qwen3Moe) {
  const GgufFile f = exported("tiny-moe");
  expect_common(f, "qwen3moe", preset("tiny-moe"));
  expect_u32(f, "qwen3moe.expert_count", 8);
  expect_u32(f, "qwen3moe.expert_used_count", 2);
  expect_u32(f, "qwen3moe.expert_feed_forward_length", 256);
  EXPECT_EQ(f.find("qwen3moe.feed_forward_length"), nullptr);
  expect_tensor(f, "blk.1.ffn_gate_inp.weight", {256, 8}, GgmlType::Q4_K);
  expect_tensor(f, "blk.1.ffn_gate_exps.weight", {256, 256, 8}, GgmlType::Q4_K);
  expect_tensor(f, "blk.1.ffn_up_exps.weight", {256, 256, 8}, GgmlType::Q4_K);
  expect_tensor(f, "blk.1.ffn_down_exps.weight", {256, 256, 8}, GgmlType::Q6_K);
}

TEST(GgufConventions, Qwen35Hybrid) {
  const ModelConfig c = preset("tiny-hybrid");
  const GgufFile f = exported("tiny-hybrid");
  expect_common(f, "qwen35moe", c);
  expect_u32(f, "qwen35moe.full_attention_interval", 4);
  expect_u32(f, "qwen35moe.ssm.conv_kernel", 4);
  expect_u32(f, "qwen35moe.ssm.state_size", 64);
  expect_u32(f, "qwen35moe.ssm.group_count", 2);
  expect_u32(f, "qwen35moe.ssm.time_step_rank", 4);
  expect_u32(f, "qwen35moe.ssm.inner_size", 256);
  expect_u32(f, "qwen35moe.expert_shared_feed_forward_length", 256);
  EXPECT_EQ(f.get_array<int32_t>("qwen35moe.rope.dimension_sections"), (std::vector<int32_t>{6, 5, 5, 0}));
  // DeltaNet layer 0: q, k, v fused (2 * 2 * 64 + 4 * 64 = 512 conv channels).
  expect_tensor(f, "blk.0.attn_qkv.weight", {256, 512}, GgmlType::Q4_K);
  expect_tensor(f, "blk.0.attn_gate.weight", {256, 256}, GgmlType::Q4_K);
  expect_tensor(f, "blk.0.ssm_beta.weight", {256, 4}, GgmlType::Q4_K);
  expect_tensor(f, "blk.0.ssm_alpha.weight", {256, 4}, GgmlType::Q4_K);
  expect_tensor(f, "blk.0.ssm_conv1d.weight", {4, 512}, GgmlType::F32);
  expect_tensor(f, "blk.0.ssm_dt.bias", {4}, GgmlType::F32);
  expect_tensor(f, "blk.0.ssm_a", {4}, GgmlType::F32);
  expect_tensor(f, "blk.0.ssm_norm.weight", {64}, GgmlType::F32);
  expect_tensor(f, "blk.0.ssm_out.weight", {256, 256}, GgmlType::Q4_K);
  expect_tensor(f, "blk.0.post_attention_norm.weight", {256}, GgmlType::F32);
  expect_tensor(f, "blk.0.ffn_gate_inp_shexp.weight", {256}, GgmlType::Q4_K);
  expect_tensor(f, "blk.0.ffn_down_shexp.weight", {256, 256}, GgmlType::Q6_K);
  // Attention layer 3: q and its gate fused head by head, 2 * 4 heads * 128 rows.
  expect_tensor(f, "blk.3.attn_q.weight", {256, 1024}, GgmlType::Q4_K);
  EXPECT_EQ(f.find_tensor("blk.3.attn_q_gate.weight"), nullptr);
  expect_tensor(f, "blk.3.attn_k.weight", {256, 128}, GgmlType::Q4_K);
  expect_tensor(f, "blk.3.attn_q_norm.weight", {128}, GgmlType::F32);
  // llama.cpp's value conventions: A = -exp(A_log) < 0, zero-centred norms stored as 1 + w.
  for (float a : std::span(reinterpret_cast<const float*>(f.tensor_data(f.tensor("blk.0.ssm_a")).data()), 4)) {
    EXPECT_LT(a, 0.0f);
  }
  const auto norm = f.tensor_data(f.tensor("blk.3.attn_norm.weight"));
  for (float w : std::span(reinterpret_cast<const float*>(norm.data()), 256)) EXPECT_NEAR(w, 1.0f, 0.11f);
}

TEST(GgufConventions, Gemma) {
  const ModelConfig c = preset("tiny-gemma");
  const GgufFile f = exported("tiny-gemma");
  expect_common(f, "gemma3", c);
  expect_u32(f, "gemma3.feed_forward_length", 512);
  expect_u32(f, "gemma3.attention.sliding_window", 8);
  expect_f32(f, "gemma3.rope.freq_base", 1000000.0f);
  expect_f32(f, "gemma3.rope.freq_base_swa", 10000.0f);
  expect_u32(f, "phasebench.global_interval", 6);
  expect_u32(f, "phasebench.global_head_dim", 128);
  expect_f32(f, "phasebench.embed_scale", 16.0f);
  EXPECT_EQ(f.find_tensor("output.weight"), nullptr);  // tied to token_embd
  expect_tensor(f, "blk.0.attn_q.weight", {256, 256}, GgmlType::Q4_K);
  expect_tensor(f, "blk.5.attn_q.weight", {256, 512}, GgmlType::Q4_K);  // global: head dim 128
  expect_tensor(f, "blk.5.attn_q_norm.weight", {128}, GgmlType::F32);
  expect_tensor(f, "blk.0.post_attention_norm.weight", {256}, GgmlType::F32);
  expect_tensor(f, "blk.0.post_ffw_norm.weight", {256}, GgmlType::F32);
  expect_tensor(f, "blk.0.ffn_norm.weight", {256}, GgmlType::F32);
}

TEST(GgufConventions, MetadataReadsBackAsThePreset) {
  for (const char* name : {"tiny-dense", "tiny-llama", "tiny-moe", "tiny-hybrid", "tiny-gemma", "qwen35-35b-a3b",
                           "gemma4-31b", "llama3-8b"}) {
    SCOPED_TRACE(name);
    gguf::GgufWriter w;
    add_config_metadata(w, preset(name));  // metadata only: the big presets' tensors stay unwritten
    // An untied LM head is told by the presence of output.weight alone.
    if (!preset(name).tied_embeddings) w.add_tensor("output.weight", {1}, GgmlType::F32, std::vector<uint8_t>(4));
    expect_same_config(config_from_gguf(GgufFile::from_buffer(w.to_bytes(), name)), preset(name));
  }
}

// Bytes [offset, offset + out.size()) of plan tensor `i` as the loader reads them.
std::vector<uint8_t> plan_bytes_from_file(const GgufFile& f, const GgufPlan& p, size_t i) {
  const TensorSpec& s = p.specs[i];
  const auto source = f.tensor_data(f.tensors()[p.sources[i]]);
  std::vector<uint8_t> out(s.bytes());
  for (uint64_t done = 0; done < out.size();) {
    const GgufSpan span = gguf_source_span(p.layouts[i], row_bytes(s.format, s.cols), out.size(), done);
    const uint64_t n = std::min<uint64_t>(span.contiguous, out.size() - done);
    std::memcpy(out.data() + done, source.data() + span.offset, n);
    done += n;
  }
  return out;
}

void expect_synthetic_bytes(const std::string& name, const ModelConfig& config, const WeightChoice& weights) {
  SCOPED_TRACE(name);
  const GgufFile f = GgufFile::from_buffer(gguf_export_writer(config, weights, 7).to_bytes(), name);
  const GgufPlan p = plan_gguf(f);
  const HostWeights host = HostWeights::synthetic(plan_tensors(config, weights), 7);
  for (size_t i = 0; i < p.specs.size(); ++i) {
    const TensorSpec& s = p.specs[i];
    const HostTensor& expected = host.get(s.role, s.layer);
    EXPECT_EQ(s.format, expected.spec.format) << s.name;
    std::vector<uint8_t> bytes = plan_bytes_from_file(f, p, i);
    if (p.layouts[i].transform == GgufValueTransform::None) {
      EXPECT_TRUE(bytes == expected.bytes) << s.name;
      continue;
    }
    std::vector<float> values(bytes.size() / sizeof(float));
    std::memcpy(values.data(), bytes.data(), bytes.size());
    gguf_values_to_plan(p.layouts[i].transform, values, s.name);
    for (size_t k = 0; k < values.size(); ++k) {
      EXPECT_NEAR(values[k], expected.values[k], 2.5e-7f) << s.name << " " << k;
    }
  }
}

TEST(GgufConventions, TensorBytesAreTheSyntheticBytes) {
  expect_synthetic_bytes("tiny-hybrid", preset("tiny-hybrid"), {});
  expect_synthetic_bytes("tiny-gemma", preset("tiny-gemma"), {});
  // A vocabulary large enough that the writer's 4 MiB chunks cut Q6_K blocks and rows.
  ModelConfig wide = preset("tiny-llama");
  wide.vocab = 21000;
  expect_synthetic_bytes("wide tiny-llama", wide, *parse_weight_choice("q6_k"));
}

}  // namespace
}  // namespace pb::test
