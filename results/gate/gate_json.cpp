#include "results/gate/gate_json.h"

#include <cmath>

namespace pb::gate {
namespace {

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

nlohmann::json metric_json(const MetricGate& m) {
  const stats::AbResult& r = m.result;
  nlohmann::json j = {{"base_median", number_or_null(r.base_median)},
                      {"cand_median", number_or_null(r.cand_median)},
                      {"ratio", number_or_null(r.ratio)},
                      {"improvement", number_or_null(r.improvement)},
                      {"ci_low", nullptr},
                      {"ci_high", nullptr},
                      {"p_value", nullptr},
                      {"test", nullptr},
                      {"verdict", stats::to_string(r.verdict)},
                      {"higher_is_better", m.higher_is_better},
                      {"n_base", r.base_count},
                      {"n_cand", r.cand_count},
                      {"more_repetitions", nullptr}};
  if (r.improvement_ci) {
    j["ci_low"] = number_or_null(r.improvement_ci->lower);
    j["ci_high"] = number_or_null(r.improvement_ci->upper);
  }
  if (r.rank_test) {
    j["p_value"] = r.rank_test->p_value;
    j["test"] = std::string("mann-whitney-") + stats::to_string(r.rank_test->method);
  }
  if (m.more_repetitions) j["more_repetitions"] = *m.more_repetitions;
  return j;
}

nlohmann::json file_json(const FileInfo& f) {
  return {{"file", f.file}, {"device", f.device}, {"git_commit", f.git_commit}};
}

}  // namespace

nlohmann::json to_json(const GateReport& report) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& run : report.runs) {
    nlohmann::json metrics = nlohmann::json::object();
    for (const auto& m : run.metrics) metrics[m.name] = metric_json(m);
    runs.push_back({{"key", run.key},
                    {"config", run.config},
                    {"verdict", run.verdict},
                    {"reason", run.reason},
                    {"headline", run.headline},
                    {"metrics", metrics}});
  }
  nlohmann::json summary = nlohmann::json::object();
  for (const auto& [verdict, count] : report.summary()) summary[verdict] = count;
  return {{"schema", kGateSchema},
          {"base", file_json(report.base)},
          {"candidate", file_json(report.candidate)},
          {"threshold", report.threshold},
          {"alpha", report.alpha},
          {"runs", runs},
          {"only_in_base", report.only_in_base},
          {"only_in_candidate", report.only_in_candidate},
          {"summary", summary}};
}

}  // namespace pb::gate
