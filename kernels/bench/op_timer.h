// Times invocations of a kernel on the GPU: a command buffer holding `rounds` passes over the
// rotation copies (one invocation per copy, back to back, a global barrier after each dispatch
// as the engine's default schedule has) between two timestamp queries, submitted and waited
// for. Batching keeps the host's submit-and-wait out of the figure and lets Google Benchmark
// reach its minimum time without a host round trip per microsecond kernel.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "harness/op.h"
#include "harness/profiler.h"
#include "harness/recorder.h"
#include "harness/submitter.h"

namespace pb {
class Device;
class PipelineSet;
}  // namespace pb

namespace pb::bench {

class OpTimer {
 public:
  // `round`: `invocations` invocations of the kernel, one per rotation copy, in order.
  OpTimer(Device& device, PipelineSet& pipelines, std::vector<Op> round, uint32_t invocations);
  OpTimer(const OpTimer&) = delete;  // the recorder refers to the profiler and the stream
  OpTimer& operator=(const OpTimer&) = delete;

  // Sets the rounds per timed command buffer (creating pipelines and descriptor sets now, not
  // while timing).
  void set_rounds(uint32_t rounds);
  // Runs rounds until the batch takes about `target_ns` of GPU time, at most `max_invocations`
  // invocations; the first batches absorb one-time costs (pipeline and page first use).
  void calibrate(double target_ns, uint32_t max_invocations);
  // Takes `rounds` per batch (a calibration of the same case before) after the untimed batches
  // calibrate runs: the one-time costs stay out of the figures, as in the first build.
  void reuse_calibration(uint32_t rounds);
  uint32_t rounds() const { return rounds_; }

  uint32_t invocations_per_batch() const { return invocations_ * rounds_; }
  // The pipeline of each op of the first invocation, in order (ops of one pipeline repeat it).
  std::vector<const ComputePipeline*> first_invocation_pipelines() const;
  // Records, submits and waits for one batch; its GPU time in nanoseconds.
  double run_batch();

 private:
  Device& device_;
  PipelineSet& pipelines_;
  std::vector<Op> round_;
  uint32_t invocations_;
  uint32_t rounds_ = 0;
  std::vector<Op> stream_;  // rounds_ copies of round_: the recorder records from it
  Profiler profiler_;
  std::unique_ptr<Recorder> recorder_;
  Submitter submitter_;

  // Untimed batches that absorb the one-time costs; the fastest of the last three, ns.
  double warm_up();
  // set_rounds, then one untimed batch of the longer stream.
  void take_rounds(uint32_t rounds);
};

}  // namespace pb::bench
