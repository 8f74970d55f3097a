// Every tiny preset exported to GGUF and run from the file through the run path (RunConfig::gguf,
// ModelSession) on the CPU device under validation computes what the synthetic model computes.
// The GGUF session uploads through a staging buffer of an odd size, so tensors cross many chunk
// edges in the middle of rows and blocks (and, for Qwen3.5's fused attn_q, of head blocks).
#include <gtest/gtest.h>

#include <cmath>

#include "engine/model/presets.h"
#include "harness/pipeline.h"
#include "harness/transfer.h"
#include "scenarios/model_session.h"
#include "scenarios/run_executor.h"
#include "tests/gguf_model/gguf_model_test_util.h"
#include "tests/support/gpu_test.h"

namespace pb::test {
namespace {

constexpr uint32_t kPrompt = 9;
constexpr uint32_t kDecode = 4;
constexpr VkDeviceSize kOddStagingBytes = 40000;  // not a multiple of any row, block or head block

struct RunCase {
  std::string model;
  std::string weights;
};

void PrintTo(const RunCase& c, std::ostream* os) { *os << c.model << " " << c.weights; }

RunConfig run_config(const RunCase& c) {
  RunConfig r;
  r.model = c.model;
  r.weights = *parse_weight_choice(c.weights);
  r.prompt_tokens = kPrompt;
  r.decode_tokens = kDecode;
  r.forward.prefill = PrefillStrategy::Batched;
  r.forward.chunk_cols = 4;
  r.barriers = BarrierPolicy::Ledger;
  return r;
}

Fingerprint run_model(const RunConfig& run, Transfer& transfer) {
  const ModelConfig model = model_config_for(run);
  PipelineSet pipelines(device(), nullptr);
  ModelSession session(device(), pipelines, transfer, run, ModelSession::sizes_for(model, {run}));
  RunExecutor executor(device(), pipelines, session, run);
  executor.run_once();
  return executor.fingerprint();
}

class GgufRunTest : public GpuTest, public ::testing::WithParamInterface<RunCase> {};

TEST_P(GgufRunTest, FileRunsLikeTheSyntheticModel) {
  const RunCase& c = GetParam();
  TempDir dir;
  const RunConfig synthetic = run_config(c);
  RunConfig from_file = synthetic;
  from_file.gguf = export_preset(dir / (c.model + ".gguf"), c.model, synthetic.weights, synthetic.seed).string();

  expect_same_config(model_config_for(from_file), preset(c.model));
  const Fingerprint expected = run_model(synthetic, transfer());
  Transfer odd(device(), kOddStagingBytes);
  const Fingerprint actual = run_model(from_file, odd);

  EXPECT_EQ(actual.tokens, expected.tokens);
  EXPECT_EQ(compare_fingerprints(actual, expected, FingerprintTolerance{1e-2f, 1e-4}), "");
  if (preset(c.model).full_attention_interval == 0) {
    // Bit-identical weights, so bit-identical logits. (Qwen3.5's ssm_a goes through
    // -exp and log on the way, which may move A_log by an ulp.)
    EXPECT_EQ(actual.logits_l2, expected.logits_l2);
  }
}

INSTANTIATE_TEST_SUITE_P(TinyPresets, GgufRunTest,
                         ::testing::Values(RunCase{"tiny-dense", "q4_k_m"}, RunCase{"tiny-llama", "q4_k_m"},
                                           RunCase{"tiny-moe", "q4_k_m"}, RunCase{"tiny-hybrid", "q4_k_m"},
                                           RunCase{"tiny-gemma", "q4_k_m"}, RunCase{"tiny-hybrid", "q8_0"},
                                           RunCase{"tiny-llama", "f16"}));

}  // namespace
}  // namespace pb::test
