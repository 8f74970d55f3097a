#include "results/gate/run_metrics.h"

#include "harness/errors.h"
#include "harness/stats/descriptive.h"
#include "results/metric_summary.h"

namespace pb::gate {

std::map<std::string, std::vector<double>> metric_values(const nlohmann::json& run, const std::string& label) {
  std::map<std::string, std::vector<double>> values;
  if (!run.contains("samples")) return values;
  const auto& samples = run["samples"];
  if (!samples.is_array()) throw UsageError(label + ": samples must be an array");
  for (size_t i = 0; i < samples.size(); ++i) {
    const auto& s = samples[i];
    if (!s.is_object() || !s.contains("metrics") || !s["metrics"].is_object()) {
      throw UsageError(label + ": samples/" + std::to_string(i) + "/metrics is missing or not an object");
    }
    for (const auto& [name, value] : s["metrics"].items()) {
      if (!value.is_number()) {
        throw UsageError(label + ": samples/" + std::to_string(i) + "/metrics/" + name + " is not a number");
      }
      values[name].push_back(value.get<double>());
    }
  }
  return values;
}

nlohmann::json summarize_run(const nlohmann::json& run, const std::string& label) {
  nlohmann::json summary = nlohmann::json::object();
  for (const auto& [name, values] : metric_values(run, label)) summary[name] = metric_summary(values);
  return summary;
}

}  // namespace pb::gate
