// Timestamps are masked, monotonic within a submit, and phase ranges never sum to more than the
// submit's span; and profiling never changes command buffers, submits or barriers.
#include <gtest/gtest.h>

#include "harness/pipeline.h"
#include "harness/profiler.h"
#include "harness/recorder.h"
#include "harness/submitter.h"
#include "harness/timestamp_math.h"
#include "tests/harness/test_ops.h"
#include "tests/support/gpu_test.h"

namespace pb::test {
namespace {

constexpr uint32_t kN = 4096;

struct Profiled {
  StageTiming timing;
  StageGpuProfile gpu;
};

class ProfilerTest : public GpuTest {
 protected:
  Buffer x = upload_floats(std::vector<float>(kN, 0.5f), "x");
  Buffer b{device(), kN * 4, MemoryUse::Device, "b"};
  Buffer c{device(), kN * 4, MemoryUse::Device, "c"};

  std::vector<Op> ops() {
    std::vector<Op> list;
    const Phase phases[] = {Phase::AttnNorm, Phase::AttnQkv, Phase::AttnQkv, Phase::FfnDown};
    for (int layer = 0; layer < 3; ++layer) {
      for (int k = 0; k < 4; ++k) {
        Op op = (k % 2 == 0) ? affine(x, b, kN, 2, 1.0f) : accumulate(b, c, kN);
        op.phase = phases[k];
        op.layer = layer;
        list.push_back(op);
      }
    }
    return list;
  }

  Profiled run(ProfileDensity density, SubmitShape shape, const std::vector<Op>& list) {
    static PipelineSet pipelines(device(), nullptr);
    Profiler profiler(device(), density);
    Recorder recorder(device(), pipelines, profiler, RecorderOptions{BarrierPolicy::Ledger});
    recorder.prepare(list);
    Submitter submitter(device());
    const auto segments = plan_segments(list, shape);
    Profiled p;
    p.timing = submitter.run(recorder, segments, false);
    p.gpu = profiler.collect(list, p.timing.start_ns, p.timing.submit_host_ns);
    device().check_validation("profiler test");
    return p;
  }
};

TEST(TimestampMath, MasksToValidBitsAndSurvivesWraparound) {
  EXPECT_EQ(timestamp_mask(64), ~0ull);
  EXPECT_EQ(timestamp_mask(36), (1ull << 36) - 1);
  // Garbage above the valid bits is ignored.
  EXPECT_EQ(timestamp_ticks_between(0xABC0000000000010ull, 0xFFF0000000000020ull, 36), 0x10u);
  // A 36-bit counter that wrapped between the two samples.
  const uint64_t before = (1ull << 36) - 5;
  const uint64_t after = 7;
  EXPECT_EQ(timestamp_ticks_between(before, after, 36), 12u);
  EXPECT_DOUBLE_EQ(timestamp_ns_between(before, after, 36, 2.5), 30.0);
}

TEST_F(ProfilerTest, PhaseSpansAreMonotonicAndFitInTheirSubmit) {
  const auto list = ops();
  for (auto shape : {SubmitShape{SubmitKind::PerLayer}, SubmitShape{SubmitKind::PerPrompt}}) {
    for (auto density : {ProfileDensity::Phase, ProfileDensity::Dispatch}) {
      const Profiled p = run(density, shape, list);
      ASSERT_TRUE(p.gpu.available);
      ASSERT_EQ(p.gpu.segments.size(), p.timing.counters.submits);
      double previous_end = -1e300;
      for (const auto& seg : p.gpu.segments) {
        EXPECT_LE(seg.begin_ns, seg.end_ns);
        EXPECT_GE(seg.begin_ns, previous_end - 1.0);  // submits run in order on one queue
        previous_end = seg.end_ns;
        double phase_sum = 0;
        double last_end = seg.begin_ns;
        for (const auto& span : p.gpu.spans) {
          if (span.segment != seg.segment) continue;
          EXPECT_LE(span.begin_ns, span.end_ns);
          EXPECT_GE(span.begin_ns, last_end - 1e-6);  // consecutive, never overlapping
          last_end = span.end_ns;
          phase_sum += span.end_ns - span.begin_ns;
        }
        EXPECT_LE(phase_sum, seg.end_ns - seg.begin_ns + 1e-6);
      }
      // Every op is covered by exactly one span: counts add up.
      uint32_t covered = 0;
      for (const auto& span : p.gpu.spans) covered += span.op_count;
      EXPECT_EQ(covered, list.size());
      // GPU busy never exceeds the host wall time of the stage.
      EXPECT_LE(p.gpu.busy_ns, static_cast<double>(p.timing.wall_ns) * 1.001 + 1000);
    }
  }
}

TEST_F(ProfilerTest, PhaseTotalsCarryEveryPhaseUsed) {
  const Profiled p = run(ProfileDensity::Phase, {SubmitKind::PerPrompt}, ops());
  EXPECT_GT(p.gpu.phase_ns[static_cast<size_t>(Phase::AttnQkv)], 0.0);
  EXPECT_GT(p.gpu.phase_ns[static_cast<size_t>(Phase::FfnDown)], 0.0);
  EXPECT_EQ(p.gpu.phase_ns[static_cast<size_t>(Phase::LmHead)], 0.0);
}

TEST_F(ProfilerTest, ProfilingNeverChangesTheSubmissionShape) {
  const auto list = ops();
  for (auto shape : {SubmitShape{SubmitKind::PerLayer}, SubmitShape{SubmitKind::PerPrompt},
                     SubmitShape{SubmitKind::Chunk, 5}}) {
    Counters reference = run(ProfileDensity::Off, shape, list).timing.counters;
    EXPECT_EQ(reference.timestamps, 0u);
    for (auto density : {ProfileDensity::Submit, ProfileDensity::Phase, ProfileDensity::Dispatch}) {
      Counters c = run(density, shape, list).timing.counters;
      EXPECT_GT(c.timestamps, 0u);
      c.timestamps = 0;
      c.host_waits = reference.host_waits;  // ring-slot waits depend on GPU speed, not shape
      EXPECT_EQ(c, reference) << "density " << profile_density_name(density) << " shape "
                              << shape.name();
    }
  }
}

}  // namespace
}  // namespace pb::test
