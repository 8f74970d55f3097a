// A chain of dependent dispatches computes the right numbers under every safe barrier policy
// and every split into command buffers, and synchronization validation reports nothing; with
// no barriers it reports the hazard (which proves the validation is really on).
#include <gtest/gtest.h>

#include <cmath>

#include "harness/pipeline.h"
#include "harness/profiler.h"
#include "harness/recorder.h"
#include "harness/submitter.h"
#include "tests/harness/test_ops.h"
#include "harness/errors.h"
#include "tests/support/gpu_test.h"

namespace pb::test {
namespace {

constexpr uint32_t kN = 777;  // not a multiple of the workgroup size

struct ChainCase {
  BarrierPolicy barriers;
  SubmitShape shape;
};

void PrintTo(const ChainCase& c, std::ostream* os) {
  *os << barrier_policy_name(c.barriers) << " " << c.shape.name();
}

class DispatchChainTest : public GpuTest, public ::testing::WithParamInterface<ChainCase> {};

// x -> b = 2x + 1 -> c = 3b -> b += c -> c = b * 1 + 0.5 -> b += c
std::vector<Op> chain(const Buffer& x, const Buffer& b, const Buffer& c) {
  std::vector<Op> ops = {affine(x, b, kN, 2, 1.0f), affine(b, c, kN, 3, 0.0f), accumulate(c, b, kN),
                         affine(b, c, kN, 1, 0.5f), accumulate(c, b, kN)};
  for (size_t i = 0; i < ops.size(); ++i) {  // each op its own layer and token, so every shape cuts
    ops[i].layer = static_cast<int32_t>(i);
    ops[i].token = static_cast<int32_t>(i);
  }
  return ops;
}

float expected(float x) {
  float b = 2 * x + 1;
  float c = 3 * b;
  b += c;
  c = b + 0.5f;
  return b + c;
}

TEST_P(DispatchChainTest, ComputesTheChain) {
  std::vector<float> input(kN);
  for (uint32_t i = 0; i < kN; ++i) input[i] = static_cast<float>(i % 97) * 0.25f - 3.0f;
  Buffer x = upload_floats(input, "x");
  Buffer b(device(), kN * 4, MemoryUse::Device, "b");
  Buffer c(device(), kN * 4, MemoryUse::Device, "c");
  const auto ops = chain(x, b, c);

  PipelineSet pipelines(device(), nullptr);
  Profiler profiler(device(), ProfileDensity::Off);
  Recorder recorder(device(), pipelines, profiler, RecorderOptions{GetParam().barriers});
  recorder.prepare(ops);
  Submitter submitter(device());
  const auto segments = plan_segments(ops, GetParam().shape);
  for (bool double_buffer : {false, true}) {
    submitter.run(recorder, segments, double_buffer);
    const auto out = download_floats(b, kN);
    for (uint32_t i = 0; i < kN; ++i) ASSERT_FLOAT_EQ(out[i], expected(input[i])) << "at " << i;
  }
  device().check_validation("the dispatch chain");
}

INSTANTIATE_TEST_SUITE_P(
    Policies, DispatchChainTest,
    ::testing::Values(ChainCase{BarrierPolicy::Global, {SubmitKind::PerPrompt}},
                      ChainCase{BarrierPolicy::Buffer, {SubmitKind::PerPrompt}},
                      ChainCase{BarrierPolicy::Ledger, {SubmitKind::PerPrompt}},
                      ChainCase{BarrierPolicy::Global, {SubmitKind::PerDispatch}},
                      ChainCase{BarrierPolicy::Buffer, {SubmitKind::PerLayerNoWait}},
                      ChainCase{BarrierPolicy::Ledger, {SubmitKind::PerLayerNoWait}},
                      ChainCase{BarrierPolicy::Ledger, {SubmitKind::Chunk, 2}},
                      ChainCase{BarrierPolicy::Global, {SubmitKind::PerToken}},
                      ChainCase{BarrierPolicy::Ledger, {SubmitKind::PerTokenAhead}}),
    [](const auto& info) {
      std::string name = std::string(barrier_policy_name(info.param.barriers)) + "_" +
                         info.param.shape.name();
      for (char& ch : name) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

// Where the host waits: per-token waits for token N before submitting N + 1 (with or without
// double buffering); per-token-ahead submits N + 1 first. Both wait once per token.
TEST(DispatchChainWaits, PerTokenAheadQueuesTheNextTokenBeforeTheHostWaits) {
  Buffer x = upload_floats(std::vector<float>(kN, 1.0f), "x");
  Buffer b(device(), kN * 4, MemoryUse::Device, "b");
  Buffer c(device(), kN * 4, MemoryUse::Device, "c");
  const auto ops = chain(x, b, c);
  PipelineSet pipelines(device(), nullptr);
  Profiler profiler(device(), ProfileDensity::Off);
  Recorder recorder(device(), pipelines, profiler, RecorderOptions{BarrierPolicy::Ledger});
  recorder.prepare(ops);
  Submitter submitter(device());

  // The host time of segment i's span of `kind` (the first, if it has several).
  auto begin_of = [](const StageTiming& t, HostSpan::Kind kind, int32_t segment) {
    for (const HostSpan& span : t.host_spans) {
      if (span.kind == kind && span.segment == segment) return span.begin_ns;
    }
    ADD_FAILURE() << "no span for segment " << segment;
    return int64_t{0};
  };
  for (const SubmitKind kind : {SubmitKind::PerToken, SubmitKind::PerTokenAhead}) {
    for (const bool double_buffer : {false, true}) {
      const auto segments = plan_segments(ops, SubmitShape{kind});
      ASSERT_EQ(segments.size(), ops.size());
      const StageTiming t = submitter.run(recorder, segments, double_buffer);
      EXPECT_EQ(t.counters.host_waits, segments.size());
      EXPECT_EQ(t.counters.submits, segments.size());
      for (int32_t i = 0; i + 1 < static_cast<int32_t>(segments.size()); ++i) {
        const int64_t waited = begin_of(t, HostSpan::Kind::Wait, i);
        const int64_t next_submitted = begin_of(t, HostSpan::Kind::Submit, i + 1);
        if (kind == SubmitKind::PerTokenAhead) {
          EXPECT_GT(waited, next_submitted) << "token " << i << " double_buffer " << double_buffer;
        } else {
          EXPECT_LT(waited, next_submitted) << "token " << i << " double_buffer " << double_buffer;
        }
      }
      const auto out = download_floats(b, kN);
      for (uint32_t i = 0; i < kN; ++i) ASSERT_FLOAT_EQ(out[i], expected(1.0f)) << "at " << i;
    }
  }
  device().check_validation("per-token and per-token-ahead");
}

TEST(DispatchChainNoBarriers, SynchronizationValidationReportsTheHazard) {
  Buffer x = upload_floats(std::vector<float>(kN, 1.0f), "x");
  Buffer b(device(), kN * 4, MemoryUse::Device, "b");
  Buffer c(device(), kN * 4, MemoryUse::Device, "c");
  const auto ops = chain(x, b, c);
  auto& log = context().instance().validation_log();
  const uint64_t before = log.error_count();
  EXPECT_THROW(run_ops(ops, BarrierPolicy::None), CheckFailure);
  EXPECT_GT(log.error_count(), before);
  const auto errors = log.errors();
  bool saw_hazard = false;
  for (const auto& e : errors) saw_hazard |= e.find("SYNC-HAZARD") != std::string::npos;
  EXPECT_TRUE(saw_hazard);
}

}  // namespace
}  // namespace pb::test
