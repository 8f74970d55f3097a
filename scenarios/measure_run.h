// Repeats one configuration under the stopping rule: warm-up, then repetitions until the 95%
// confidence interval of the headline metric's median is narrow enough, or `max` repetitions,
// or `max_seconds`. Every sample is kept; a failure keeps what was measured before it.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "harness/stats/stopping_rule.h"
#include "scenarios/run_record.h"

namespace pb {

class Device;
class PipelineSet;
class ModelSession;

struct Progress {
  int repetition = 0;           // 1-based; warm-up repetitions count separately
  bool warmup = false;
  std::optional<double> median;  // of the headline so far
  std::optional<double> rel_ci;  // relative half-width of its 95% CI
  double elapsed_s = 0;
};
using ProgressFn = std::function<void(const Progress&)>;

// Builds the executor for `config` on `session` and measures it. Never throws for a failure of
// the run itself: the record says `failed` with the error.
RunRecord measure_run(Device& device, PipelineSet& pipelines, ModelSession& session,
                      const RunConfig& config, const stats::StoppingRule& rule,
                      const ProgressFn& progress = {});

}  // namespace pb
