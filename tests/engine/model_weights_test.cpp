// Stacked projection storage (ModelWeights): a layer's q, k, v and gate, up are stored back to
// back where they share a format, and stacked() hands out exactly those runs, so the forward
// pass may run each as one matrix. Padded stacks (a DeltaNet's input projections, a router with
// its shared expert's gate) start each member on 64 rows, where its output starts. The contents are checked elsewhere: the forward-vs-CPU
// tests and the GGUF run tests (every preset uploaded into this layout) compare outputs.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/model/model_weights.h"
#include "engine/model/presets.h"
#include "engine/quant/weight_format.h"
#include "harness/pipeline.h"
#include "harness/transfer.h"
#include "tests/support/gpu_test.h"

namespace pb::test {
namespace {

constexpr TensorRole kQkv[] = {TensorRole::AttnQ, TensorRole::AttnK, TensorRole::AttnV};
constexpr TensorRole kQk[] = {TensorRole::AttnQ, TensorRole::AttnK};
constexpr TensorRole kGateUp[] = {TensorRole::FfnGate, TensorRole::FfnUp};

ModelWeights allocated(const std::string& model, WeightChoice choice) {
  const ModelConfig config = preset(model);
  return ModelWeights::allocate(device(), config, plan_tensors(config, choice));
}

class ModelWeightsTest : public GpuTest {};

TEST_F(ModelWeightsTest, OneFormatStacksQkvAndGateUp) {
  const ModelWeights w = allocated("tiny-dense", WeightChoice{WeightFormat::Q8_0});
  const ModelConfig& c = w.config();
  for (int32_t l = 0; l < static_cast<int32_t>(c.n_layers); ++l) {
    const auto qkv = w.stacked(kQkv, l);
    ASSERT_TRUE(qkv.has_value()) << "layer " << l;
    const DeviceTensor& q = w.get(TensorRole::AttnQ, l);
    EXPECT_EQ(qkv->spec.rows, c.q_dim(l) + 2ull * c.kv_dim(l));
    EXPECT_EQ(qkv->spec.cols, q.spec.cols);
    EXPECT_EQ(qkv->spec.format, WeightFormat::Q8_0);
    EXPECT_EQ(qkv->storage, q.storage);
    EXPECT_EQ(qkv->offset, q.offset);
    EXPECT_EQ(qkv->view().bytes,
              q.spec.bytes() + w.get(TensorRole::AttnK, l).spec.bytes() + w.get(TensorRole::AttnV, l).spec.bytes());
    EXPECT_EQ(w.get(TensorRole::AttnV, l).offset, q.offset + q.spec.bytes() + w.get(TensorRole::AttnK, l).spec.bytes());
    const auto gate_up = w.stacked(kGateUp, l);
    ASSERT_TRUE(gate_up.has_value());
    EXPECT_EQ(gate_up->spec.rows, 2ull * c.ffn_hidden);
  }
  // Stacking adds no padding: the buffers hold exactly the plan's bytes.
  EXPECT_EQ(w.bytes(), plan_bytes(plan_tensors(c, WeightChoice{WeightFormat::Q8_0})));
}

TEST_F(ModelWeightsTest, MixedFormatsStackOnlyTheRunThatSharesOne) {
  // The Q4_K_M mixture: q and k Q4_K, v Q6_K; gate and up Q4_K.
  const ModelWeights w = allocated("tiny-dense", WeightChoice{});
  ASSERT_EQ(w.get(TensorRole::AttnV, 0).spec.format, WeightFormat::Q6_K);
  EXPECT_FALSE(w.stacked(kQkv, 0).has_value());
  const auto qk = w.stacked(kQk, 0);
  ASSERT_TRUE(qk.has_value());
  EXPECT_EQ(qk->spec.format, WeightFormat::Q4_K);
  EXPECT_NE(w.get(TensorRole::AttnV, 0).storage, w.get(TensorRole::AttnQ, 0).storage);
  EXPECT_TRUE(w.stacked(kGateUp, 0).has_value());
}

TEST_F(ModelWeightsTest, StackedRefusesWhatIsNotStoredInThatOrder) {
  const ModelWeights w = allocated("tiny-dense", WeightChoice{WeightFormat::Q8_0});
  const TensorRole reversed[] = {TensorRole::AttnK, TensorRole::AttnQ};
  const TensorRole apart[] = {TensorRole::AttnQ, TensorRole::AttnOutput};
  const TensorRole skipping[] = {TensorRole::AttnQ, TensorRole::AttnV};
  const TensorRole missing[] = {TensorRole::SharedGate, TensorRole::SharedUp};  // a dense model
  EXPECT_FALSE(w.stacked(reversed, 0).has_value());
  EXPECT_FALSE(w.stacked(apart, 0).has_value());
  EXPECT_FALSE(w.stacked(skipping, 0).has_value());
  EXPECT_FALSE(w.stacked(missing, 0).has_value());
  // Layers do not stack with each other.
  EXPECT_NE(w.get(TensorRole::AttnQ, 0).storage, w.get(TensorRole::AttnQ, 1).storage);
}

TEST_F(ModelWeightsTest, MoeSharedExpertStacksGateAndUp) {
  const ModelWeights w = allocated("tiny-hybrid", WeightChoice{WeightFormat::Q8_0});
  const TensorRole shared[] = {TensorRole::SharedGate, TensorRole::SharedUp};
  const auto stack = w.stacked(shared, 0);
  ASSERT_TRUE(stack.has_value());
  EXPECT_EQ(stack->spec.rows, 2ull * w.config().moe.shared_expert_ffn);
  // Expert tensors ([experts][rows][cols]) never stack.
  const TensorRole experts[] = {TensorRole::MoeGateExps, TensorRole::MoeUpExps};
  EXPECT_FALSE(w.stacked(experts, 0).has_value());
}

// Qwen3.5's DeltaNet projections (beta and alpha are value_heads rows, fewer than 64 in
// tiny-hybrid) and its router (16 experts) with the shared expert's gate: each member after the
// first starts on the next multiple of 64 rows, the stack's rows run to its last member's end,
// and the rows between hold zeros, which the stacked projection reads.
TEST_F(ModelWeightsTest, PaddedStacksStartEachMemberWhereItsOutputStarts) {
  const ModelConfig config = preset("tiny-hybrid");
  const std::vector<TensorSpec> plan = plan_tensors(config, WeightChoice{WeightFormat::Q8_0});
  PipelineSet pipelines(device(), nullptr);
  const ModelWeights w = ModelWeights::synthetic(device(), pipelines, transfer(), config, plan, 7);
  ASSERT_NE(config.ssm.value_heads % 64, 0u);
  ASSERT_NE(config.moe.n_experts % 64, 0u);
  const auto up64 = [](uint64_t rows) { return (rows + 63) / 64 * 64; };
  uint64_t pad_bytes = 0;
  const auto check = [&](std::span<const TensorRole> roles, int32_t l) {
    const auto stack = w.stacked(roles, l);
    ASSERT_TRUE(stack.has_value()) << "layer " << l;
    const uint64_t row = row_bytes(stack->spec.format, stack->spec.cols);
    uint64_t first_row = 0;
    for (size_t m = 0; m < roles.size(); ++m) {
      const DeviceTensor& t = w.get(roles[m], l);
      EXPECT_EQ(t.offset, stack->offset + first_row * row) << "member " << m << " of layer " << l;
      if (m + 1 < roles.size()) {
        // The rows up to the next member are zeros.
        const uint64_t end = t.offset + t.spec.bytes(), next = stack->offset + up64(first_row + t.spec.rows) * row;
        pad_bytes += next - end;
        if (next > end) {
          const std::vector<uint8_t> pad = transfer().download_as<uint8_t>(*t.storage, end, next - end);
          EXPECT_EQ(std::count(pad.begin(), pad.end(), uint8_t{0}), static_cast<long>(pad.size())) << "layer " << l;
        }
        first_row = up64(first_row + t.spec.rows);
      } else {
        EXPECT_EQ(stack->spec.rows, first_row + t.spec.rows);
      }
    }
  };
  const TensorRole ssm_in[] = {TensorRole::SsmQkv, TensorRole::SsmZ, TensorRole::SsmBeta, TensorRole::SsmAlpha};
  const TensorRole router[] = {TensorRole::MoeRouter, TensorRole::SharedGateInp};
  int deltanet = 0;
  for (int32_t l = 0; l < static_cast<int32_t>(config.n_layers); ++l) {
    if (config.layer_kind(l) == LayerKind::DeltaNet) {
      check(ssm_in, l);
      ++deltanet;
    }
    check(router, l);
  }
  EXPECT_GT(deltanet, 0);
  EXPECT_GT(pad_bytes, 0u);
  // The buffers hold the plan's bytes and the pads, nothing more.
  EXPECT_EQ(w.bytes(), plan_bytes(plan) + pad_bytes);
  // A member skipped leaves no stack: beta's rows would be read as padding.
  const TensorRole skipping[] = {TensorRole::SsmQkv, TensorRole::SsmZ, TensorRole::SsmAlpha};
  EXPECT_FALSE(w.stacked(skipping, 0).has_value());
}

}  // namespace
}  // namespace pb::test
