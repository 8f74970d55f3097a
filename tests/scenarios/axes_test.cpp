// Every axis value is a real code path: each test shows an axis changes what it claims, in the
// counts of submits, waits, barriers, pipelines and descriptor writes, or in the ops it emits,
// while the output stays the same.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>

#include "engine/model/presets.h"
#include "harness/errors.h"
#include "harness/pipeline.h"
#include "kernels/registry.h"
#include "scenarios/model_session.h"
#include "scenarios/run_executor.h"
#include "tests/support/gpu_test.h"

namespace pb::test {
namespace {

constexpr uint32_t kPrompt = 6;
constexpr uint32_t kDecode = 2;
constexpr uint32_t kLayers = 3;  // tiny-dense

RunConfig base_config() {
  RunConfig c;
  c.model = "tiny-dense";
  c.prompt_tokens = kPrompt;
  c.decode_tokens = kDecode;
  c.forward.chunk_cols = 4;
  c.profile = ProfileDensity::Off;
  return c;
}

struct Measured {
  RepetitionSample sample;
  Fingerprint fingerprint;
  size_t pipelines_created;
  std::vector<Op> prefill_ops;
  std::vector<Op> decode_ops;  // every decode step
  StageTimeline prefill_timeline;
};

class AxesTest : public GpuTest {
 protected:
  static void SetUpTestSuite() {
    pipelines_ = std::make_unique<PipelineSet>(device(), nullptr);
    RunConfig widest = base_config();
    widest.forward.prefill = PrefillStrategy::Batched;
    widest.forward.chunk_cols = kPrompt;
    // Room for int8 DMMV inputs, for the dmmv_activations test.
    widest.forward.dmmv_activations = DmmvActivations::Int8;
    session_ = std::make_unique<ModelSession>(device(), *pipelines_, transfer(), widest,
                                              ModelSession::sizes_for(preset("tiny-dense"), {widest}));
  }
  static void TearDownTestSuite() {
    session_.reset();
    pipelines_.reset();
  }

  Measured measure(const RunConfig& c) {
    PipelineSet fresh(device(), nullptr);  // counts the pipelines this config needs
    RunExecutor executor(device(), fresh, *session_, c);
    Measured m;
    m.sample = executor.run_once(&m.prefill_timeline, nullptr);
    m.fingerprint = executor.fingerprint();
    m.pipelines_created = fresh.created();
    m.prefill_ops = executor.ops(true);
    m.decode_ops = executor.ops(false);
    return m;
  }

  static std::unique_ptr<PipelineSet> pipelines_;
  static std::unique_ptr<ModelSession> session_;
};
std::unique_ptr<PipelineSet> AxesTest::pipelines_;
std::unique_ptr<ModelSession> AxesTest::session_;

TEST_F(AxesTest, SubmitShapesCutWhereTheyClaimAndWaitWhereTheyClaim) {
  RunConfig c = base_config();
  c.submit = {SubmitKind::PerDispatch};
  const Measured dispatch = measure(c);
  const uint64_t dispatches = dispatch.sample.prefill.counters.dispatches;
  EXPECT_EQ(dispatch.sample.prefill.counters.submits, dispatches);
  EXPECT_EQ(dispatch.sample.prefill.counters.host_waits, dispatches);

  c.submit = {SubmitKind::PerLayer};
  const Measured layer = measure(c);
  EXPECT_EQ(layer.sample.prefill.counters.submits, kPrompt * kLayers);
  EXPECT_EQ(layer.sample.prefill.counters.host_waits, kPrompt * kLayers);
  EXPECT_EQ(layer.sample.decode.counters.submits, kDecode * kLayers);

  c.submit = {SubmitKind::PerLayerNoWait};
  const Measured nowait = measure(c);
  EXPECT_EQ(nowait.sample.prefill.counters.submits, kPrompt * kLayers);
  EXPECT_LE(nowait.sample.prefill.counters.host_waits, 1u + kPrompt * kLayers / kMaxQueuedSegments);

  c.submit = {SubmitKind::PerToken};
  EXPECT_EQ(measure(c).sample.prefill.counters.submits, kPrompt);

  c.submit = {SubmitKind::PerPrompt};
  const Measured prompt = measure(c);
  EXPECT_EQ(prompt.sample.prefill.counters.submits, 1u);
  EXPECT_EQ(prompt.sample.prefill.counters.host_waits, 1u);

  c.submit = {SubmitKind::Chunk, 10};
  EXPECT_EQ(measure(c).sample.prefill.counters.submits, (dispatches + 9) / 10);

  // Every shape records the same dispatches and computes the same tokens.
  for (const Measured* m : {&layer, &nowait, &prompt}) {
    EXPECT_EQ(m->sample.prefill.counters.dispatches, dispatches);
    EXPECT_EQ(m->fingerprint.tokens, dispatch.fingerprint.tokens);
  }
}

TEST_F(AxesTest, PrefillStrategiesEmitDifferentKernels) {
  RunConfig c = base_config();
  auto kernels = [](const Measured& m) {
    std::set<std::string> names;
    for (const Op& op : m.prefill_ops) names.insert(op.kernel->name);
    return names;
  };
  c.forward.prefill = PrefillStrategy::DecodeLoop;
  const Measured loop = measure(c);
  c.forward.prefill = PrefillStrategy::Batched;
  const Measured batched = measure(c);
  c.forward.prefill = PrefillStrategy::Matmul;
  const Measured matmul = measure(c);
  // The decode loop's attention does each token's RoPE and KV write itself; chunks keep the
  // RoPE's own dispatch.
  EXPECT_TRUE(kernels(loop).count("attn_decode_rope"));
  EXPECT_FALSE(kernels(loop).count("qk_norm_rope_kv"));
  EXPECT_FALSE(kernels(loop).count("attn_prefill"));
  EXPECT_TRUE(kernels(batched).count("qk_norm_rope_kv"));
  EXPECT_FALSE(kernels(batched).count("attn_decode_rope"));
  EXPECT_TRUE(kernels(batched).count("attn_prefill"));
  EXPECT_TRUE(kernels(matmul).count("matmul_q4_k"));
  EXPECT_FALSE(kernels(batched).count("matmul_q4_k"));
  for (const Op& op : loop.prefill_ops) {
    if (std::string(op.kernel->name).rfind("dmmv", 0) == 0) {
      EXPECT_EQ(op.spec.values[0], 1);
    }
  }
  EXPECT_LT(batched.sample.prefill.counters.dispatches, loop.sample.prefill.counters.dispatches);
  EXPECT_EQ(batched.fingerprint.tokens, loop.fingerprint.tokens);
  EXPECT_EQ(matmul.fingerprint.tokens, loop.fingerprint.tokens);
}

TEST_F(AxesTest, ProjectionsStoredAsOneStackRunAsOneDispatch) {
  // tiny-dense in the Q4_K_M mixture: q and k share Q4_K (v is Q6_K), gate and up share Q4_K.
  RunConfig c = base_config();
  c.forward.prefill = PrefillStrategy::Batched;
  const Measured m = measure(c);
  std::map<std::string, size_t> labels;
  for (const Op& op : m.prefill_ops) ++labels[op.label];
  const size_t chunks = (kPrompt + c.forward.chunk_cols - 1) / c.forward.chunk_cols;
  EXPECT_EQ(labels["attn_qk"], kLayers * chunks);
  EXPECT_EQ(labels["attn_v"], kLayers * chunks);
  EXPECT_GE(labels["ffn_gate_up"], kLayers);
  for (const char* alone : {"attn_q", "attn_k", "attn_qkv", "ffn_gate", "ffn_up"}) {
    EXPECT_EQ(labels[alone], 0u) << alone;
  }
}

TEST_F(AxesTest, ChunkColsSetsTheNumberOfChunks) {
  RunConfig c = base_config();
  c.forward.prefill = PrefillStrategy::Batched;
  auto embeds = [](const Measured& m) {
    size_t n = 0;
    for (const Op& op : m.prefill_ops) n += op.phase == Phase::Embed;
    return n;
  };
  c.forward.chunk_cols = 2;
  EXPECT_EQ(embeds(measure(c)), 3u);
  c.forward.chunk_cols = 4;
  EXPECT_EQ(embeds(measure(c)), 2u);
  c.forward.chunk_cols = 6;
  EXPECT_EQ(embeds(measure(c)), 1u);
}

TEST_F(AxesTest, NumColsSpecCutsIntoPowersOfTwoSharedUsesOnePipeline) {
  RunConfig c = base_config();
  c.forward.prefill = PrefillStrategy::Batched;
  c.forward.chunk_cols = 6;  // 6 = 4 + 2 under spec
  auto dmmv_specs = [](const Measured& m) {
    std::set<std::pair<int, int>> specs;  // (NUM_COLS, SHARED)
    for (const Op& op : m.prefill_ops) {
      if (std::string(op.kernel->name).rfind("dmmv", 0) == 0) specs.insert({op.spec.values[0], op.spec.values[1]});
    }
    return specs;
  };
  c.forward.num_cols = NumColsMode{false, 64};
  const Measured spec = measure(c);
  EXPECT_EQ(dmmv_specs(spec), (std::set<std::pair<int, int>>{{2, 0}, {4, 0}}));
  c.forward.num_cols = NumColsMode{true, 32};
  const Measured shared = measure(c);
  EXPECT_EQ(dmmv_specs(shared), (std::set<std::pair<int, int>>{{32, 1}}));
  EXPECT_LT(shared.sample.prefill.counters.dispatches, spec.sample.prefill.counters.dispatches);
  EXPECT_EQ(shared.fingerprint.tokens, spec.fingerprint.tokens);
}

TEST_F(AxesTest, Int8ActivationsQuantizeEachInputOnceForIntegerDotKernels) {
  RunConfig c = base_config();
  c.forward.prefill = PrefillStrategy::Batched;  // 2 chunks: 4 + 2 columns
  c.forward.dmmv_activations = DmmvActivations::Int8;
  if (find_kernel("quantize_x") == nullptr || !device().info().caps.integer_dot_product) {
    EXPECT_THROW(measure(c), UsageError);  // refused, never silently float
    return;
  }
  const Measured int8 = measure(c);
  c.forward.dmmv_activations = DmmvActivations::Float;
  const Measured flt = measure(c);
  size_t quantizes = 0, norm_quantizes = 0, glu_quantizes = 0, intdot = 0, float_dmmv = 0, float_projections = 0;
  size_t norms = 0, glus = 0;
  for (const Op& op : int8.prefill_ops) {
    const std::string name = op.kernel->name;
    quantizes += name == "quantize_x";
    norm_quantizes += name == "rmsnorm_quantize";
    glu_quantizes += name == "glu_quantize";
    intdot += name.rfind("dmmv_intdot_", 0) == 0;
    float_dmmv += name.rfind("dmmv_", 0) == 0 && name.rfind("dmmv_intdot_", 0) != 0;
  }
  for (const Op& op : flt.prefill_ops) {
    const std::string name = op.kernel->name;
    float_projections += name.rfind("dmmv_", 0) == 0;
    norms += name == "rmsnorm";
    glus += name == "glu";
  }
  // tiny-dense's projections are all Q4_K or Q6_K: every one goes integer. Per chunk and layer
  // four inputs are quantized: the normed x for q/k/v and the one for gate/up by the norms
  // themselves (rmsnorm_quantize), the GLU output by the GLU (glu_quantize), the attention
  // output by quantize_x; plus the final norm for the LM head. So int8 adds one dispatch per
  // chunk and layer to the float stream, and every norm and GLU of the float stream is fused.
  EXPECT_EQ(float_dmmv, 0u);
  EXPECT_EQ(intdot, float_projections);
  EXPECT_EQ(quantizes, 2 * kLayers);
  EXPECT_EQ(norm_quantizes, 2 * (2 * kLayers + 1));
  EXPECT_EQ(norm_quantizes, norms);
  EXPECT_EQ(glu_quantizes, 2 * kLayers);
  EXPECT_EQ(glu_quantizes, glus);
  EXPECT_EQ(int8.sample.prefill.counters.dispatches, flt.sample.prefill.counters.dispatches + quantizes);

  // In decode the attention output is quantized by attention's last dispatch too, so int8 adds
  // no dispatch at all.
  size_t decode_quantizes = 0, attention_quantizes = 0;
  for (const Op& op : int8.decode_ops) {
    const std::string name = op.kernel->name;
    decode_quantizes += name == "quantize_x";
    attention_quantizes += name == "attn_decode_rope_quantize" || name == "attn_merge_quantize";
  }
  EXPECT_EQ(decode_quantizes, 0u);
  EXPECT_EQ(attention_quantizes, kLayers * kDecode);
  EXPECT_EQ(int8.decode_ops.size(), flt.decode_ops.size());
  EXPECT_EQ(int8.sample.decode.counters.dispatches, flt.sample.decode.counters.dispatches);
}

TEST_F(AxesTest, BarrierPoliciesEmitTheirKindOfBarrier) {
  RunConfig c = base_config();
  c.barriers = BarrierPolicy::Global;
  const Counters global = measure(c).sample.prefill.counters;
  EXPECT_EQ(global.memory_barriers, global.dispatches);
  EXPECT_EQ(global.buffer_barriers, 0u);
  c.barriers = BarrierPolicy::Buffer;
  const Counters buffer = measure(c).sample.prefill.counters;
  EXPECT_EQ(buffer.memory_barriers, 0u);
  EXPECT_EQ(buffer.barrier_commands, buffer.dispatches);
  EXPECT_GT(buffer.buffer_barriers, buffer.dispatches);
  c.barriers = BarrierPolicy::Ledger;
  const Counters ledger = measure(c).sample.prefill.counters;
  EXPECT_LT(ledger.barrier_commands, global.barrier_commands);
  EXPECT_GT(ledger.memory_barriers, 0u);
}

TEST_F(AxesTest, DescriptorModesWriteWhenTheyClaim) {
  RunConfig c = base_config();
  uint64_t bindings = 0;
  c.descriptors = DescriptorMode::Persistent;
  const Measured persistent = measure(c);
  for (const Op& op : persistent.prefill_ops) bindings += op.bindings.size();
  EXPECT_EQ(persistent.sample.prefill.counters.descriptor_writes, 0u);  // written once at load
  c.descriptors = DescriptorMode::PoolReset;
  const Measured pool = measure(c);
  EXPECT_EQ(pool.sample.prefill.counters.descriptor_writes, bindings);
  c.descriptors = DescriptorMode::Push;
  const Measured push = measure(c);
  EXPECT_EQ(push.sample.prefill.counters.descriptor_writes, bindings);
  for (const Measured* m : {&persistent, &pool, &push}) {
    EXPECT_EQ(m->sample.prefill.counters.descriptor_set_binds, m->sample.prefill.counters.dispatches);
    EXPECT_EQ(m->fingerprint.tokens, persistent.fingerprint.tokens);
  }
}

TEST_F(AxesTest, DoubleBufferingRecordsTheNextBufferBeforeWaiting) {
  RunConfig c = base_config();
  c.submit = {SubmitKind::PerLayer};
  auto records_before_wait = [](const Measured& m) {
    // Host spans in order: with double buffering, segment i+1 is recorded before the wait for i.
    const auto& spans = m.prefill_timeline.host.host_spans;
    int overlapped = 0;
    for (size_t i = 0; i + 1 < spans.size(); ++i) {
      if (spans[i].kind == HostSpan::Kind::Record && spans[i + 1].kind == HostSpan::Kind::Wait &&
          spans[i + 1].segment + 1 == spans[i].segment) {
        ++overlapped;
      }
    }
    return overlapped;
  };
  c.double_buffer = false;
  const Measured single = measure(c);
  c.double_buffer = true;
  const Measured dbl = measure(c);
  EXPECT_EQ(records_before_wait(single), 0);
  EXPECT_EQ(records_before_wait(dbl), static_cast<int>(kPrompt * kLayers) - 1);
  EXPECT_EQ(dbl.sample.prefill.counters.submits, single.sample.prefill.counters.submits);
  EXPECT_EQ(dbl.fingerprint.tokens, single.fingerprint.tokens);
}

TEST_F(AxesTest, SkippingDeadWorkDropsTheTailOfNonTerminalTokens) {
  RunConfig c = base_config();
  auto lm_heads = [](const Measured& m) {
    size_t n = 0;
    for (const Op& op : m.prefill_ops) n += op.phase == Phase::LmHead;
    return n;
  };
  c.forward.skip_dead_work = false;
  const Measured all = measure(c);
  c.forward.skip_dead_work = true;
  const Measured skip = measure(c);
  EXPECT_EQ(lm_heads(all), kPrompt);
  EXPECT_EQ(lm_heads(skip), 1u);
  EXPECT_LT(skip.sample.prefill.counters.dispatches, all.sample.prefill.counters.dispatches);
  EXPECT_EQ(skip.fingerprint.tokens, all.fingerprint.tokens);
}

TEST_F(AxesTest, ProfileDensityAddsOnlyTimestamps) {
  RunConfig c = base_config();
  c.submit = {SubmitKind::PerToken};
  Counters reference;
  for (auto density : {ProfileDensity::Off, ProfileDensity::Submit, ProfileDensity::Phase, ProfileDensity::Dispatch}) {
    c.profile = density;
    Counters counters = measure(c).sample.prefill.counters;
    if (density == ProfileDensity::Off) {
      EXPECT_EQ(counters.timestamps, 0u);
      reference = counters;
      continue;
    }
    if (density == ProfileDensity::Submit) {
      EXPECT_EQ(counters.timestamps, 2 * counters.submits);
    }
    if (density == ProfileDensity::Dispatch) {
      EXPECT_EQ(counters.timestamps, counters.submits + counters.dispatches);
    }
    counters.timestamps = 0;
    counters.host_waits = reference.host_waits;
    EXPECT_EQ(counters, reference) << profile_density_name(density);
  }
}

TEST_F(AxesTest, SubgroupSizeIsRequiredWhereTheDeviceAllowsIt) {
  RunConfig c = base_config();
  c.subgroup = device().info().min_subgroup_size;  // 8 on lavapipe
  const Measured allowed = measure(c);
  c.subgroup = 0;
  EXPECT_EQ(measure(c).fingerprint.tokens, allowed.fingerprint.tokens);
  c.subgroup = device().info().max_subgroup_size * 4;  // 32 on lavapipe: not available
  try {
    measure(c);
    FAIL() << "a subgroup size the device cannot require must fail the run";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("subgroup size"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pb::test
