// gguf-info and export-gguf through the real binary, as a user meets them: output and exit
// statuses (0 success, 2 bad input), and `run --gguf` end to end.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/gguf_model/gguf_model_test_util.h"
#include "tests/results/binary_run.h"

namespace pb::test {
namespace {

TEST(GgufCli, ExportThenInfo) {
  TempDir dir;
  const std::string file = (dir / "moe.gguf").string();
  const BinaryResult exported = run_binary("export-gguf --model tiny-moe --seed 3 --out " + file);
  ASSERT_EQ(exported.status, 0) << exported.out;
  EXPECT_TRUE(contains(exported.out, "wrote " + file));
  ASSERT_TRUE(std::filesystem::exists(file));

  const BinaryResult info = run_binary("gguf-info " + file);
  ASSERT_EQ(info.status, 0) << info.out;
  EXPECT_TRUE(contains(info.out, "GGUF v3"));
  EXPECT_TRUE(contains(info.out, "architecture: \"qwen3moe\""));
  EXPECT_TRUE(contains(info.out, "qwen3moe.expert_count"));
  EXPECT_TRUE(contains(info.out, "phasebench.seed"));
  EXPECT_TRUE(contains(info.out, "(1000 elements)"));  // the token list, summarized
  EXPECT_TRUE(contains(info.out, "blk.1.ffn_down_exps.weight"));
  EXPECT_TRUE(contains(info.out, "Q6_K"));
  EXPECT_TRUE(contains(info.out, "[256, 256, 8]"));
  EXPECT_TRUE(contains(info.out, "phasebench can run it: yes"));
  EXPECT_TRUE(contains(info.out, "8 experts top-2"));
}

TEST(GgufCli, InfoSaysWhyAFileCannotRun) {
  TempDir dir;
  const auto good = export_preset(dir / "good.gguf", "tiny-llama");
  GgufEdit edit;
  edit.retype["blk.1.attn_v.weight"] = gguf::GgmlType::Q4_0;
  rewrite_gguf(good, dir / "q4_0.gguf", edit);
  const BinaryResult info = run_binary("gguf-info " + (dir / "q4_0.gguf").string());
  EXPECT_EQ(info.status, 0) << info.out;
  EXPECT_TRUE(contains(info.out, "phasebench can run it: no"));
  EXPECT_TRUE(contains(info.out, "\"blk.1.attn_v.weight\" has ggml type Q4_0"));
}

TEST(GgufCli, BadInputExitsWithTwo) {
  TempDir dir;
  const std::string out = (dir / "x.gguf").string();
  const BinaryResult unknown = run_binary("export-gguf --model no-such-model --out " + out);
  EXPECT_EQ(unknown.status, 2) << unknown.out;
  EXPECT_TRUE(contains(unknown.out, "tiny-llama"));  // the list of presets
  const BinaryResult weights = run_binary("export-gguf --model tiny-llama --weights q5_k --out " + out);
  EXPECT_EQ(weights.status, 2) << weights.out;
  EXPECT_TRUE(contains(weights.out, "q4_k_m, f32, f16, q8_0, q4_k, q6_k"));
  EXPECT_EQ(run_binary("export-gguf --model tiny-llama").status, 2);  // no --out
  EXPECT_FALSE(std::filesystem::exists(out));
  const BinaryResult missing = run_binary("gguf-info " + (dir / "missing.gguf").string());
  EXPECT_EQ(missing.status, 2) << missing.out;
  const BinaryResult run = run_binary("run --gguf " + (dir / "missing.gguf").string() + " --out " +
                                      (dir / "r.json").string());
  EXPECT_EQ(run.status, 2) << run.out;
}

TEST(GgufCli, RunFromAGgufFile) {
  TempDir dir;
  const std::string file = (dir / "llama.gguf").string();
  ASSERT_EQ(run_binary("export-gguf --model tiny-llama --out " + file).status, 0);
  const BinaryResult run = run_binary("run --gguf " + file + " --prompt 4 --decode 2 --repetitions 1 --out " +
                                      (dir / "r.json").string());
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_TRUE(std::filesystem::exists(dir / "r.json"));
}

}  // namespace
}  // namespace pb::test
