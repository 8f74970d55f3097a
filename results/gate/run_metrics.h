// A run's measurements as the gate and the merger read them: every metric's values across the
// run's samples, and the stat block a result file's `summary` holds for each.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace pb::gate {

// metric name -> its value in each sample that has it (samples[].metrics), in sample order.
// A metric present in only some samples (a phase that rounds to zero) keeps just those values,
// as the run's own summary does. Throws UsageError naming `label` for malformed samples.
std::map<std::string, std::vector<double>> metric_values(const nlohmann::json& run, const std::string& label);

// The summary block of one metric, computed exactly as the run record does (scenarios/
// run_record.cpp): n, median, mean, min, max, q1, q3 and the 95% CI of the median from order
// statistics (ci_* null below 6 samples). `values` must not be empty.
nlohmann::json summarize(const std::vector<double>& values);

// The whole `summary` object of a run recomputed from its samples.
nlohmann::json summarize_run(const nlohmann::json& run, const std::string& label);

}  // namespace pb::gate
