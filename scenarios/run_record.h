// Everything measured for one configuration: its samples, how the repetitions stopped, what it
// computed, and its status. Written to the result file as one entry of `runs`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/stats/stopping_rule.h"
#include "scenarios/fingerprint.h"
#include "scenarios/model_facts.h"
#include "scenarios/run_config.h"
#include "scenarios/run_executor.h"
#include "scenarios/stage_sample.h"

namespace pb {

struct RunRecord {
  RunConfig config;
  std::string status = "ok";  // ok, incorrect, failed
  std::string error;          // why, when not ok
  ModelFacts model;
  int warmup = 0;             // repetitions run and discarded
  std::vector<RepetitionSample> samples;
  stats::StopReason stop_reason = stats::StopReason::Continue;
  std::string headline;       // the metric the stopping rule watched
  double elapsed_s = 0;
  std::optional<Fingerprint> fingerprint;
  size_t pipelines_created = 0;
  double pipeline_create_ms = 0;
  std::optional<StageTimeline> prefill_timeline, decode_timeline;  // of the last repetition
};

// The headline metric of a configuration: decode tokens/s when it decodes, else prefill.
std::string default_headline(const RunConfig& config);

// The run's entry of the result file (DESIGN.md, Results): config, samples, summary (median,
// min, max, quartiles and 95% CI of the median per metric), counters per token, derived
// bandwidth, fingerprint, status and timeline. `copy_bandwidth_gbps` (0 = unknown) is the
// device's roofline.
nlohmann::json to_json(const RunRecord& record, double copy_bandwidth_gbps);

}  // namespace pb
