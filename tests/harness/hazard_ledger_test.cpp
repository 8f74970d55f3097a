// The ledger emits exactly the barriers a hand-written op sequence needs.
#include "harness/hazard_ledger.h"

#include <gtest/gtest.h>

#include "harness/pipeline.h"
#include "harness/profiler.h"
#include "harness/recorder.h"
#include "harness/submitter.h"
#include "tests/harness/test_ops.h"
#include "tests/support/gpu_test.h"

namespace pb::test {
namespace {

constexpr uint32_t kN = 1024;

class LedgerTest : public GpuTest {
 protected:
  Buffer a{device(), kN * 4, MemoryUse::Device, "a"};
  Buffer b{device(), kN * 4, MemoryUse::Device, "b"};
  Buffer c{device(), kN * 4, MemoryUse::Device, "c"};

  // Records and runs `ops` in one command buffer under the ledger; returns its counters.
  Counters run_ledger(const std::vector<Op>& ops) {
    transfer().fill(a, 0, kN * 4, 0x3f800000u);  // defined inputs: 1.0f
    transfer().fill(b, 0, kN * 4, 0);
    transfer().fill(c, 0, kN * 4, 0);
    static PipelineSet pipelines(device(), nullptr);
    Profiler profiler(device(), ProfileDensity::Off);
    Recorder recorder(device(), pipelines, profiler, RecorderOptions{BarrierPolicy::Ledger});
    recorder.prepare(ops);
    Submitter submitter(device());
    const Segment segment{0, static_cast<uint32_t>(ops.size()), HostWait::After};
    const StageTiming timing = submitter.run(recorder, std::span(&segment, 1), false);
    device().check_validation("ledger test");
    return timing.counters;
  }
};

TEST_F(LedgerTest, ReadAfterWriteNeedsAMemoryBarrier) {
  const auto c = run_ledger({affine(a, b, kN, 2, 0), affine(b, this->c, kN, 2, 0)});
  EXPECT_EQ(c.memory_barriers, 1u);
  EXPECT_EQ(c.execution_barriers, 0u);
}

TEST_F(LedgerTest, WriteAfterWriteNeedsAMemoryBarrier) {
  const auto c = run_ledger({affine(a, b, kN, 2, 0), affine(a, b, kN, 3, 0)});
  EXPECT_EQ(c.memory_barriers, 1u);
  EXPECT_EQ(c.execution_barriers, 0u);
}

TEST_F(LedgerTest, WriteAfterReadNeedsOnlyAnExecutionBarrier) {
  const auto c = run_ledger({affine(a, b, kN, 2, 0), affine(this->c, a, kN, 2, 0)});
  EXPECT_EQ(c.memory_barriers, 0u);
  EXPECT_EQ(c.execution_barriers, 1u);
}

TEST_F(LedgerTest, ReadAfterReadNeedsNoBarrier) {
  const auto c = run_ledger({affine(a, b, kN, 2, 0), affine(a, this->c, kN, 3, 0)});
  EXPECT_EQ(c.barrier_commands, 0u);
}

TEST_F(LedgerTest, DisjointRangesOfOneBufferNeedNoBarrier) {
  const uint32_t half = kN / 2;
  const auto c = run_ledger({affine(a, b, half, 2, 0, 0, 0), affine(a, b, half, 3, 0, half, half)});
  EXPECT_EQ(c.barrier_commands, 0u);
}

TEST_F(LedgerTest, OverlappingRangesNeedABarrier) {
  const uint32_t quarter = kN / 4;
  // Writes [0, 3/4); then reads [1/2, 1): they overlap in [1/2, 3/4).
  const auto c = run_ledger({affine(a, b, 3 * quarter, 2, 0, 0, 0),
                             affine(b, this->c, 2 * quarter, 2, 0, 2 * quarter, 0)});
  EXPECT_EQ(c.memory_barriers, 1u);
}

TEST_F(LedgerTest, AdjacentRangesDoNotOverlap) {
  const uint32_t half = kN / 2;
  // Writes [0, 1/2); then reads [1/2, 1): adjacent, not overlapping.
  const auto c = run_ledger({affine(a, b, half, 2, 0, 0, 0), affine(b, this->c, half, 2, 0, half, 0)});
  EXPECT_EQ(c.barrier_commands, 0u);
}

TEST_F(LedgerTest, HazardsAfterABarrierAreStillCaught) {
  const auto c = run_ledger({affine(a, b, kN, 2, 0), affine(b, this->c, kN, 2, 0),
                             affine(a, this->c, kN / 2, 2, 0)});
  // Third op writes c which op 2 wrote: WAW needs a second memory barrier.
  EXPECT_EQ(c.memory_barriers, 2u);
}

TEST(HazardLedgerUnit, ReadWriteBindingCountsAsBoth) {
  Buffer x(device(), 256, MemoryUse::Device, "x");
  HazardLedger ledger;
  const BufferRef rw{&x, 0, 256, Access::ReadWrite};
  ledger.record(std::span(&rw, 1));
  EXPECT_EQ(ledger.pending_reads(), 1u);
  EXPECT_EQ(ledger.pending_writes(), 1u);
  const BufferRef r{&x, 128, 16, Access::Read};
  EXPECT_TRUE(ledger.check(std::span(&r, 1)).read_after_write);
  ledger.after_execution_barrier();
  EXPECT_EQ(ledger.pending_reads(), 0u);
  EXPECT_TRUE(ledger.check(std::span(&r, 1)).read_after_write);  // writes still pending
  ledger.after_memory_barrier();
  EXPECT_FALSE(ledger.check(std::span(&r, 1)).any());
}

}  // namespace
}  // namespace pb::test
