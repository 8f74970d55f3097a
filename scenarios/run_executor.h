// Runs one configuration on a loaded model: builds its op streams, plans its segments,
// prepares pipelines and descriptors, and executes repetitions of prefill then decode through
// the harness. Knows nothing of repetition counts or files.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "engine/forward/op_stream.h"
#include "harness/profiler.h"
#include "harness/recorder.h"
#include "harness/submitter.h"
#include "scenarios/fingerprint.h"
#include "scenarios/model_session.h"
#include "scenarios/run_config.h"
#include "scenarios/stage_sample.h"

namespace pb {

class Device;
class PipelineSet;

// A stage's host and GPU timeline, kept from one repetition for traces and timeline charts.
struct StageTimeline {
  StageTiming host;
  StageGpuProfile gpu;
};

class RunExecutor {
 public:
  RunExecutor(Device& device, PipelineSet& pipelines, ModelSession& session, const RunConfig& config);

  // One repetition: the prefill stage, then the decode stage. Fills the timelines if given.
  RepetitionSample run_once(StageTimeline* prefill = nullptr, StageTimeline* decode = nullptr);

  // What the last repetition computed, read back from the device.
  Fingerprint fingerprint();

  double pipeline_create_ms() const { return pipeline_create_ms_; }
  size_t pipelines_created() const { return pipelines_created_; }
  size_t prefill_ops() const { return prefill_ops_.size(); }
  size_t decode_ops() const { return decode_ops_.size(); }
  const std::vector<Op>& ops(bool prefill) const { return prefill ? prefill_ops_ : decode_ops_; }

 private:
  StageSample run_stage(Recorder& recorder, const std::vector<Op>& ops,
                        const std::vector<Segment>& segments, uint32_t tokens, StageTimeline* timeline);

  Device& device_;
  ModelSession& session_;
  RunConfig config_;
  OpStream stream_;
  std::vector<Op> prefill_ops_, decode_ops_;
  std::vector<Segment> prefill_segments_, decode_segments_;
  Profiler profiler_;
  std::unique_ptr<Recorder> prefill_recorder_, decode_recorder_;
  Submitter submitter_;
  double pipeline_create_ms_ = 0;
  size_t pipelines_created_ = 0;
};

}  // namespace pb
