#include "tests/gguf_model/gguf_model_test_util.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "engine/gguf/gguf_writer.h"
#include "engine/model/gguf_export.h"
#include "engine/model/presets.h"

namespace pb::test {

namespace fs = std::filesystem;

TempDir::TempDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(info->test_suite_name()) + "_" + info->name();
  std::replace(name.begin(), name.end(), '/', '_');  // parameterized test names
  path_ = fs::temp_directory_path() / ("pb_gguf_model_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(path_);
  fs::create_directories(path_);
}

TempDir::~TempDir() { fs::remove_all(path_); }

fs::path export_preset(const fs::path& path, const std::string& name, const WeightChoice& weights, uint32_t seed) {
  gguf_export_writer(preset(name), weights, seed).write(path);
  return path;
}

void rewrite_gguf(const fs::path& from, const fs::path& to, const GgufEdit& edit) {
  const gguf::GgufFile src = gguf::GgufFile::open(from);
  gguf::GgufWriter w(src.alignment());
  std::set<std::string> set_done;
  for (const auto& kv : src.metadata()) {
    if (kv.key == "general.alignment" || edit.drop_keys.count(kv.key)) continue;
    const auto it = edit.set_keys.find(kv.key);
    w.add(kv.key, it != edit.set_keys.end() ? it->second : kv.value);
    if (it != edit.set_keys.end()) set_done.insert(kv.key);
  }
  for (const auto& [key, value] : edit.set_keys) {
    if (!set_done.count(key)) w.add(key, value);
  }
  for (const auto& t : src.tensors()) {
    if (edit.drop_tensors.count(t.name)) continue;
    std::vector<uint64_t> dims = t.dims;
    auto type = static_cast<gguf::GgmlType>(t.ggml_type);
    if (const auto it = edit.reshape.find(t.name); it != edit.reshape.end()) dims = it->second;
    if (const auto it = edit.retype.find(t.name); it != edit.retype.end()) type = it->second;
    if (const auto it = edit.replace_data.find(t.name); it != edit.replace_data.end()) {
      w.add_tensor(t.name, dims, type, std::vector<uint8_t>(it->second));
    } else if (dims != t.dims || type != static_cast<gguf::GgmlType>(t.ggml_type)) {
      const auto size = gguf::ggml_tensor_bytes(gguf::ggml_type_info(type), dims);
      if (!size.error.empty()) throw std::runtime_error("rewrite " + t.name + ": " + size.error);
      w.add_tensor(t.name, dims, type, std::vector<uint8_t>(size.bytes, 0));
    } else {
      w.add_tensor(t.name, dims, type, src.tensor_data(t));  // borrowed: src outlives write()
    }
  }
  for (const auto& [name, values] : edit.add_f32) {
    std::vector<uint8_t> bytes(values.size() * sizeof(float));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    w.add_tensor(name, {values.size()}, gguf::GgmlType::F32, std::move(bytes));
  }
  w.write(to);
}

::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << part << "\" not in:\n" << text;
}

void expect_same_config(const ModelConfig& a, const ModelConfig& e) {
#define PB_SAME(field) EXPECT_EQ(a.field, e.field) << #field
  PB_SAME(name);
  PB_SAME(arch);
  PB_SAME(n_layers);
  PB_SAME(hidden);
  PB_SAME(n_heads);
  PB_SAME(n_kv_heads);
  PB_SAME(head_dim);
  PB_SAME(ffn_hidden);
  PB_SAME(vocab);
  PB_SAME(rms_eps);
  PB_SAME(rope_theta);
  PB_SAME(rope_style);
  PB_SAME(rope_dims);
  PB_SAME(qk_norm);
  PB_SAME(tied_embeddings);
  PB_SAME(sliding_window);
  PB_SAME(global_interval);
  PB_SAME(global_head_dim);
  PB_SAME(global_rope_theta);
  PB_SAME(norm_add_one);
  PB_SAME(post_norms);
  PB_SAME(embed_scale);
  PB_SAME(ffn_activation);
  PB_SAME(full_attention_interval);
  PB_SAME(attention_output_gate);
  PB_SAME(ssm.key_heads);
  PB_SAME(ssm.value_heads);
  PB_SAME(ssm.d_k);
  PB_SAME(ssm.d_v);
  PB_SAME(ssm.conv_width);
  EXPECT_TRUE(a.moe == e.moe) << "moe";
#undef PB_SAME
}

}  // namespace pb::test
