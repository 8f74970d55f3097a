#include "kernels/bench/op_timer.h"

#include <algorithm>
#include <cmath>

#include "harness/device.h"
#include "harness/errors.h"

namespace pb::bench {

OpTimer::OpTimer(Device& device, PipelineSet& pipelines, std::vector<Op> round, uint32_t invocations)
    : device_(device),
      pipelines_(pipelines),
      round_(std::move(round)),
      invocations_(invocations),
      profiler_(device, ProfileDensity::Submit),
      submitter_(device) {
  if (round_.empty() || invocations_ == 0) throw UsageError("a benchmark with no ops to time");
  set_rounds(1);
}

void OpTimer::set_rounds(uint32_t rounds) {
  if (rounds == rounds_) return;
  rounds_ = rounds;
  recorder_.reset();  // it refers to the stream being replaced
  stream_.clear();
  stream_.reserve(round_.size() * rounds);
  for (uint32_t r = 0; r < rounds; ++r) stream_.insert(stream_.end(), round_.begin(), round_.end());
  recorder_ = std::make_unique<Recorder>(device_, pipelines_, profiler_,
                                         RecorderOptions{BarrierPolicy::Global, DescriptorMode::Persistent});
  recorder_->prepare(stream_);
}

std::vector<const ComputePipeline*> OpTimer::first_invocation_pipelines() const {
  const auto all = recorder_->op_pipelines();
  const size_t per_invocation = round_.size() / invocations_;
  return {all.begin(), all.begin() + static_cast<std::ptrdiff_t>(per_invocation)};
}

double OpTimer::warm_up() {
  run_batch();
  double batch_ns = run_batch();
  for (int i = 0; i < 2; ++i) batch_ns = std::min(batch_ns, run_batch());
  return batch_ns;
}

void OpTimer::take_rounds(uint32_t rounds) {
  set_rounds(rounds);
  run_batch();  // the longer stream's descriptor sets and command buffer, once untimed
}

void OpTimer::calibrate(double target_ns, uint32_t max_invocations) {
  const double round_ns = warm_up() / rounds_;
  const double wanted = std::ceil(target_ns / std::max(round_ns, 1.0));
  const double cap = std::max(1u, max_invocations / invocations_);
  take_rounds(static_cast<uint32_t>(std::clamp(wanted, 1.0, cap)));
}

void OpTimer::reuse_calibration(uint32_t rounds) {
  warm_up();  // as calibrate does, so every build of a case warms alike
  take_rounds(rounds);
}

double OpTimer::run_batch() {
  const Segment segment{0, static_cast<uint32_t>(stream_.size()), HostWait::After};
  const StageTiming timing = submitter_.run(*recorder_, std::span(&segment, 1), false);
  const StageGpuProfile gpu = profiler_.collect(stream_, timing.start_ns, timing.submit_host_ns);
  if (!gpu.available || gpu.segments.size() != 1) {
    throw CheckFailure("the benchmark's command buffer returned no timestamps");
  }
  const double ns = gpu.segments[0].end_ns - gpu.segments[0].begin_ns;
  if (!(ns > 0))
    throw CheckFailure("the benchmark's timestamps give a GPU time of " + std::to_string(ns) + " ns");
  return ns;
}

}  // namespace pb::bench
