// The tiny models on the GPU against the CPU reference, for prefill and decode, and every
// prefill strategy and barrier policy giving the same tokens; with int8 DMMV inputs against the
// reference that quantizes them the same way.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/model/host_weights.h"
#include "engine/reference_forward.h"
#include "kernels/registry.h"
#include "tests/scenarios/forward_runs.h"

namespace pb::test {
namespace {

class ForwardReferenceTest : public GpuTest, public ::testing::WithParamInterface<ForwardCase> {};

TEST_P(ForwardReferenceTest, MatchesTheCpuReference) {
  const RunConfig run = config_for(GetParam());
  const ModelConfig model = preset(run.model);
  PipelineSet pipelines(device(), nullptr);
  ModelSession session(device(), pipelines, transfer(), run, ModelSession::sizes_for(model, {run}));
  RunExecutor executor(device(), pipelines, session, run);
  executor.run_once();
  const Fingerprint gpu = executor.fingerprint();
  // A second repetition replays the prompt from empty states (KV rows, SSM states) and must
  // compute exactly the same.
  executor.run_once();
  const Fingerprint again = executor.fingerprint();
  EXPECT_EQ(again.tokens, gpu.tokens);
  EXPECT_EQ(again.logits_l2, gpu.logits_l2);

  const auto plan = plan_tensors(model, run.weights);
  const HostWeights host = HostWeights::synthetic(plan, run.seed);
  const auto prompt = synthetic_prompt(run.seed, kPrompt, model.vocab);
  const ReferenceResult ref = reference_generate(
      model, host, prompt, kDecode, ReferenceOptions{run.forward.dmmv_activations == DmmvActivations::Int8});

  // Tokens: equal wherever the reference's choice was clear, margins close. With int8 inputs
  // the GPU and the CPU quantize slightly different floats (summation order, the KV cache's f16
  // rounding), and a value near a rounding boundary gets the neighbouring int8 code on one side;
  // over the layers of a random tiny model that moves a top-2 margin by up to 0.19 (measured on
  // tiny-hybrid; float runs agree to 1e-3), so the int8 bounds are wider. A wiring fault (a
  // stale or wrong quantized input) changes tokens whose margin is far above them.
  const bool int8 = run.forward.dmmv_activations == DmmvActivations::Int8;
  const float clear_margin = int8 ? 0.3f : 1e-2f;
  const float margin_slack = int8 ? 0.25f : 2e-2f;
  ASSERT_EQ(gpu.tokens.size(), ref.generated.size());
  bool diverged = false;
  for (size_t i = 0; i < ref.generated.size(); ++i) {
    if (gpu.tokens[i] != ref.generated[i]) {
      EXPECT_LT(ref.margins[i], clear_margin) << "token " << i << ": gpu " << gpu.tokens[i] << " reference "
                                              << ref.generated[i];
      diverged = true;
      break;  // after a legitimate near-tie the continuations differ
    }
    EXPECT_NEAR(gpu.margins[i], ref.margins[i], margin_slack + 2e-2f * std::fabs(ref.margins[i]));
  }
  if (diverged) return;  // the final logits belong to different continuations
  // Final logits: L2 norm within 0.5%.
  double l2 = 0;
  for (float v : ref.final_logits) l2 += double(v) * v;
  l2 = std::sqrt(l2);
  EXPECT_NEAR(gpu.logits_l2, l2, 5e-3 * l2);
}

// Every prefill strategy with every barrier policy on the dense and the hybrid model (the most
// kernels); every strategy under the ledger, and one under global barriers, on the others.
std::vector<ForwardCase> cases() {
  std::vector<ForwardCase> list;
  const auto strategies = {PrefillStrategy::DecodeLoop, PrefillStrategy::Batched, PrefillStrategy::Matmul};
  for (const char* model : {"tiny-dense", "tiny-hybrid"}) {
    for (auto prefill : strategies) {
      for (auto barriers : {BarrierPolicy::Global, BarrierPolicy::Buffer, BarrierPolicy::Ledger}) {
        list.push_back({model, prefill, barriers, 4});
      }
    }
    list.push_back({model, PrefillStrategy::Batched, BarrierPolicy::Ledger, 32});
  }
  for (const char* model : {"tiny-llama", "tiny-moe", "tiny-gemma"}) {
    for (auto prefill : strategies) list.push_back({model, prefill, BarrierPolicy::Ledger, 4});
    list.push_back({model, PrefillStrategy::Batched, BarrierPolicy::Global, 32});
  }
  // A whole prompt in one chunk, so an expert serves several tokens: through the experts'
  // matmul where the device has cooperative matrices, through the expert DMMV elsewhere.
  list.push_back({"tiny-moe", PrefillStrategy::Matmul, BarrierPolicy::Ledger, 32});
  // ffn_down's 8448 inputs through the matmul in chunks of 4: on the matrix units its K splits
  // across workgroups (matmul_split.h), the scalar matmul elsewhere.
  list.push_back({"tiny-wide", PrefillStrategy::Matmul, BarrierPolicy::Ledger, 4, DmmvActivations::Float,
                  Placement::Dispatch, Placement::Dispatch, WeightChoice{WeightFormat::Q4_K}});
  // The shared expert's SwiGLU, sigmoid gate and residual add in the reductions of its split
  // gate/up and down on the matrix units; their own dispatches elsewhere.
  list.push_back({"tiny-hybrid-wide", PrefillStrategy::Matmul, BarrierPolicy::Ledger, 8, DmmvActivations::Float,
                  Placement::Dispatch, Placement::Dispatch, WeightChoice{WeightFormat::Q4_K}});
  // One format for every matrix, so that the gated attention's q, k, v and output gate stack
  // too (in the mixture v is Q6_K): the stacks of rows padded to 64, in prefill and decode.
  for (auto prefill : strategies) {
    list.push_back({"tiny-hybrid", prefill, BarrierPolicy::Ledger, 4, DmmvActivations::Float, Placement::Dispatch,
                    Placement::Dispatch, WeightChoice{WeightFormat::Q8_0}});
  }
  // int8 DMMV inputs where the build and the device have integer dot products (the suite
  // asserts elsewhere, dmmv_intdot_test, that a build without them refuses the axis). The
  // matmul prefill's dense projections stay float, so its cases check the mixed stream against
  // the int8 reference within the same tolerance.
  if (find_kernel("quantize_x") != nullptr) {
    for (const char* model : {"tiny-dense", "tiny-llama", "tiny-hybrid", "tiny-moe", "tiny-gemma"}) {
      for (auto prefill : {PrefillStrategy::DecodeLoop, PrefillStrategy::Batched}) {
        list.push_back({model, prefill, BarrierPolicy::Ledger, 4, DmmvActivations::Int8});
      }
    }
    list.push_back({"tiny-dense", PrefillStrategy::Matmul, BarrierPolicy::Ledger, 4, DmmvActivations::Int8});
    // The matmul prefill's experts on int8 inputs where an expert serves few assignments
    // (chunk_experts_int8): tiny-moe (8 experts, top 2) in chunks of 4, 1 a expert (gate, up
    // and down); tiny-hybrid (16, top 4) in chunks of 8, 2 a expert (gate and up).
    list.push_back({"tiny-moe", PrefillStrategy::Matmul, BarrierPolicy::Ledger, 4, DmmvActivations::Int8});
    list.push_back({"tiny-hybrid", PrefillStrategy::Matmul, BarrierPolicy::Ledger, 8, DmmvActivations::Int8});
    list.push_back({"tiny-dense", PrefillStrategy::Batched, BarrierPolicy::Global, 32, DmmvActivations::Int8});
    // ffn_down's 8448 inputs in Q4_K and Q8_0 (the formats of the int8 matrix kernel): its piece
    // of 8 columns with K split across workgroups, where the device has that kernel (the
    // integer dot elsewhere).
    for (const WeightFormat f : {WeightFormat::Q4_K, WeightFormat::Q8_0}) {
      list.push_back({"tiny-wide", PrefillStrategy::Batched, BarrierPolicy::Ledger, 32, DmmvActivations::Int8,
                      Placement::Dispatch, Placement::Dispatch, WeightChoice{f}});
    }
    // Decode's norms and gated units applied by the projections before them: every
    // architecture (where one has float readers or no single projection before it, it keeps its
    // dispatch), each alone on the dense model, and every barrier policy there.
    for (const char* model : {"tiny-dense", "tiny-llama", "tiny-hybrid", "tiny-moe", "tiny-gemma"}) {
      list.push_back({model, PrefillStrategy::Batched, BarrierPolicy::Ledger, 4, DmmvActivations::Int8,
                      Placement::Producer, Placement::Producer});
    }
    list.push_back({"tiny-hybrid", PrefillStrategy::Batched, BarrierPolicy::Ledger, 4, DmmvActivations::Int8,
                    Placement::Producer, Placement::Producer, WeightChoice{WeightFormat::Q4_K}});
    list.push_back({"tiny-dense", PrefillStrategy::Batched, BarrierPolicy::Ledger, 4, DmmvActivations::Int8,
                    Placement::Producer, Placement::Dispatch});
    list.push_back({"tiny-dense", PrefillStrategy::Batched, BarrierPolicy::Ledger, 4, DmmvActivations::Int8,
                    Placement::Dispatch, Placement::Producer});
    for (auto barriers : {BarrierPolicy::Global, BarrierPolicy::Buffer}) {
      list.push_back({"tiny-dense", PrefillStrategy::DecodeLoop, barriers, 4, DmmvActivations::Int8,
                      Placement::Producer, Placement::Producer});
    }
  }
  return list;
}

INSTANTIATE_TEST_SUITE_P(TinyModels, ForwardReferenceTest, ::testing::ValuesIn(cases()));

}  // namespace
}  // namespace pb::test
