#include "scenarios/measure_run.h"

#include <chrono>
#include <exception>
#include <memory>

#include "harness/device.h"
#include "harness/host_clock.h"
#include "harness/stats/descriptive.h"
#include "harness/stats/median_ci.h"
#include "scenarios/model_session.h"

namespace pb {

RunRecord measure_run(Device& device, PipelineSet& pipelines, ModelSession& session,
                      const RunConfig& config, const stats::StoppingRule& rule,
                      const ProgressFn& progress) {
  RunRecord record;
  record.config = config;
  record.model = session.facts();
  record.headline = default_headline(config);
  const int64_t start = host_now_ns();
  auto elapsed = [&] { return static_cast<double>(host_now_ns() - start) / 1e9; };
  try {
    stats::validate(rule);
    RunExecutor executor(device, pipelines, session, config);
    record.pipelines_created = executor.pipelines_created();
    record.pipeline_create_ms = executor.pipeline_create_ms();
    for (int w = 0; w < rule.warmup; ++w) {
      executor.run_once();
      ++record.warmup;
      if (progress) progress({w + 1, true, std::nullopt, std::nullopt, elapsed()});
    }
    std::vector<double> headline;
    const double measure_start = elapsed();
    for (;;) {
      StageTimeline prefill, decode;
      RepetitionSample sample = executor.run_once(&prefill, &decode);
      const auto metrics = metrics_of(sample);
      headline.push_back(metrics.at(record.headline));
      record.samples.push_back(std::move(sample));
      record.prefill_timeline = std::move(prefill);
      record.decode_timeline = std::move(decode);
      const auto decision = stats::decide(rule, headline, elapsed() - measure_start);
      if (progress) {
        progress({static_cast<int>(headline.size()), false, stats::median(headline), decision.rel_ci,
                  elapsed()});
      }
      if (decision.stop()) {
        record.stop_reason = decision.reason;
        break;
      }
    }
    record.fingerprint = executor.fingerprint();
  } catch (const std::exception& e) {
    record.status = "failed";
    record.error = e.what();
    // A device error may leave validation messages behind; they belong to this run.
    try {
      device.check_validation("the failed run");
    } catch (const std::exception&) {
    }
  }
  record.elapsed_s = elapsed();
  return record;
}

}  // namespace pb
