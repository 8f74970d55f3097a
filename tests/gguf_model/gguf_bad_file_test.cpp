// GGUF files phasebench cannot run fail on the run path (model_config_for, before any device
// work) with a UsageError that names the file and the key or tensor and says what is expected;
// files it can run despite extras say what they ignore.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "engine/model/gguf_model.h"
#include "engine/model/gguf_tensor_layout.h"
#include "harness/errors.h"
#include "scenarios/model_session.h"
#include "tests/gguf_model/gguf_model_test_util.h"

namespace pb::test {
namespace {

using gguf::GgmlType;

// The message model_config_for throws for `edit` applied to an exported `preset_name`.
std::string load_error(const std::string& preset_name, const GgufEdit& edit) {
  TempDir dir;
  const auto good = export_preset(dir / "good.gguf", preset_name);
  const auto bad = dir / "bad.gguf";
  rewrite_gguf(good, bad, edit);
  RunConfig run;
  run.gguf = bad.string();
  try {
    model_config_for(run);
  } catch (const UsageError& e) {
    EXPECT_TRUE(contains(std::string(e.what()), "bad.gguf"));
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(GgufBadFile, UnsupportedArchitecture) {
  GgufEdit edit;
  edit.set_keys["general.architecture"] = gguf::GgufValue("mamba");
  const std::string e = load_error("tiny-llama", edit);
  EXPECT_TRUE(contains(e, "\"mamba\""));
  EXPECT_TRUE(contains(e, "llama, qwen3, qwen3moe, qwen35moe, gemma3"));
}

TEST(GgufBadFile, MissingArchitecture) {
  GgufEdit edit;
  edit.drop_keys = {"general.architecture"};
  EXPECT_TRUE(contains(load_error("tiny-llama", edit), "\"general.architecture\" is missing"));
}

TEST(GgufBadFile, MissingKey) {
  GgufEdit edit;
  edit.drop_keys = {"qwen3moe.expert_used_count"};
  EXPECT_TRUE(contains(load_error("tiny-moe", edit), "\"qwen3moe.expert_used_count\" is missing"));
}

TEST(GgufBadFile, MistypedKey) {
  GgufEdit edit;
  edit.set_keys["llama.block_count"] = gguf::GgufValue("two");
  const std::string e = load_error("tiny-llama", edit);
  EXPECT_TRUE(contains(e, "\"llama.block_count\""));
  EXPECT_TRUE(contains(e, "expected an unsigned integer"));
}

TEST(GgufBadFile, MissingTensor) {
  GgufEdit edit;
  edit.drop_tensors = {"blk.1.ffn_up.weight"};
  const std::string e = load_error("tiny-llama", edit);
  EXPECT_TRUE(contains(e, "tensor \"blk.1.ffn_up.weight\" is missing"));
}

TEST(GgufBadFile, MissingFusedAttentionTensor) {
  GgufEdit edit;
  edit.drop_tensors = {"blk.3.attn_q.weight"};
  EXPECT_TRUE(contains(load_error("tiny-hybrid", edit), "tensor \"blk.3.attn_q.weight\" is missing"));
}

TEST(GgufBadFile, WrongShape) {
  GgufEdit edit;
  edit.reshape["blk.0.attn_k.weight"] = {256, 128};
  const std::string e = load_error("tiny-llama", edit);
  EXPECT_TRUE(contains(e, "tensor \"blk.0.attn_k.weight\" has shape [256, 128]"));
  EXPECT_TRUE(contains(e, "describes [256, 64]"));
}

TEST(GgufBadFile, TransposedMatrix) {
  GgufEdit edit;
  edit.reshape["blk.0.ffn_down.weight"] = {256, 768};  // ne0 must be the row length, 768
  EXPECT_TRUE(contains(load_error("tiny-llama", edit), "describes [768, 256]"));
}

TEST(GgufBadFile, UnsupportedTensorType) {
  GgufEdit edit;
  edit.retype["blk.0.ffn_gate.weight"] = GgmlType::Q4_0;
  const std::string e = load_error("tiny-llama", edit);
  EXPECT_TRUE(contains(e, "tensor \"blk.0.ffn_gate.weight\" has ggml type Q4_0"));
  EXPECT_TRUE(contains(e, "F32, F16, Q8_0, Q4_K, Q6_K"));
}

TEST(GgufBadFile, QuantizedNorm) {
  GgufEdit edit;
  edit.retype["blk.0.attn_norm.weight"] = GgmlType::F16;
  const std::string e = load_error("tiny-dense", edit);
  EXPECT_TRUE(contains(e, "\"blk.0.attn_norm.weight\" has ggml type F16"));
  EXPECT_TRUE(contains(e, "as F32"));
}

TEST(GgufBadFile, ShapePhasebenchCannotRun) {
  GgufEdit edit;  // a hidden size that is not whole Q4_K blocks per row
  edit.set_keys["llama.embedding_length"] = gguf::GgufValue(uint32_t{320});
  EXPECT_TRUE(contains(load_error("tiny-llama", edit), "hidden must be a multiple of 256"));
}

TEST(GgufBadFile, PositiveSsmA) {
  std::vector<float> a = {-0.5f, 0.25f};
  EXPECT_THROW(gguf_values_to_plan(GgufValueTransform::NegExp, a, "blk.0.ssm_a"), UsageError);
  std::vector<float> zero = {-0.0f};
  gguf_values_to_plan(GgufValueTransform::NegExp, zero, "blk.0.ssm_a");
  EXPECT_TRUE(std::isinf(zero[0]) && zero[0] < 0);  // A_log = -inf: no decay, as in the file
}

TEST(GgufExtras, UnusedTensorsAndMtpBlocksAreNotedNotFatal) {
  TempDir dir;
  const auto good = export_preset(dir / "good.gguf", "tiny-llama");
  GgufEdit edit;
  edit.add_f32 = {{"rope_freqs.weight", std::vector<float>(32, 1.0f)}, {"blk.2.nextn.enorm.weight", std::vector<float>(256, 1.0f)}};
  edit.set_keys["llama.block_count"] = gguf::GgufValue(uint32_t{3});
  edit.set_keys["llama.nextn_predict_layers"] = gguf::GgufValue(uint32_t{1});
  edit.set_keys["llama.rope.scaling.type"] = gguf::GgufValue("linear");
  rewrite_gguf(good, dir / "extra.gguf", edit);
  const GgufModel model = GgufModel::open(dir / "extra.gguf");
  EXPECT_EQ(model.config().n_layers, 2u);
  ASSERT_EQ(model.notes().size(), 2u);
  EXPECT_TRUE(contains(model.notes()[0], "rope.scaling.type = linear"));
  EXPECT_TRUE(contains(model.notes()[1], "rope_freqs.weight, blk.2.nextn.enorm.weight"));
}

TEST(GgufBadFile, MalformedFileIsAUsageError) {
  TempDir dir;
  const auto good = export_preset(dir / "good.gguf", "tiny-llama");
  std::filesystem::resize_file(good, std::filesystem::file_size(good) / 2);
  RunConfig run;
  run.gguf = good.string();
  EXPECT_THROW(model_config_for(run), UsageError);
}

}  // namespace
}  // namespace pb::test
