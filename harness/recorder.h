// Records ops into command buffers: pipeline binds (skipped when unchanged), descriptors by the
// chosen mode, push constants, the dispatch, the barrier policy's barriers and the profiler's
// timestamps. Pipelines and persistent descriptor sets are prepared for the whole op stream
// before anything is timed.
#pragma once

#include <volk.h>

#include <span>
#include <vector>

#include "harness/barrier_policy.h"
#include "harness/counters.h"
#include "harness/descriptors.h"
#include "harness/op.h"
#include "harness/pipeline.h"
#include "harness/profiler.h"

namespace pb {

class Device;

struct RecorderOptions {
  BarrierPolicy barriers = BarrierPolicy::Global;
  DescriptorMode descriptors = DescriptorMode::Persistent;
  uint32_t required_subgroup_size = 0;  // 0 = default
};

class Recorder {
 public:
  Recorder(Device& device, PipelineSet& pipelines, Profiler& profiler, RecorderOptions options);

  // Validates every op, creates its pipeline and (persistent mode) its descriptor set. The ops
  // must stay where they are for as long as this recorder records them.
  void prepare(std::span<const Op> ops);

  // Records ops [segment.first, +count) of the prepared stream into `cb` (begun and ended here).
  void record(VkCommandBuffer cb, uint32_t segment_index, uint32_t first, uint32_t count,
              uint32_t slot, Counters& counters);

  DescriptorBinder& descriptors() { return descriptors_; }
  Profiler& profiler() { return profiler_; }
  std::span<const Op> ops() const { return ops_; }
  // The pipeline of each op of the prepared stream, in order.
  std::span<const ComputePipeline* const> op_pipelines() const { return op_pipelines_; }

 private:
  Device& device_;
  PipelineSet& pipelines_;
  Profiler& profiler_;
  RecorderOptions options_;
  DescriptorBinder descriptors_;
  BarrierEmitter barriers_;
  std::span<const Op> ops_;
  std::vector<const ComputePipeline*> op_pipelines_;  // per op of the prepared stream
};

}  // namespace pb
