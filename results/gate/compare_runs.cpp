#include "results/gate/compare_runs.h"

#include <algorithm>
#include <cmath>

#include "harness/errors.h"
#include "results/gate/run_metrics.h"
#include "scenarios/fingerprint.h"
#include "scenarios/stage_sample.h"

namespace pb::gate {
namespace {

bool all_positive(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v) && v > 0; });
}

bool is_unsafe(const nlohmann::json& run) {
  if (run.value("unsafe", false)) return true;
  const auto& c = run.value("config", nlohmann::json::object());
  return c.value("barriers", std::string()) == "none";
}

std::string status_of(const nlohmann::json& run) { return run.value("status", std::string("ok")); }

// The run's own explanation of a non-ok status, when it gives one.
std::string why(const nlohmann::json& run) {
  for (const char* key : {"incorrect_reason", "error"}) {
    if (run.contains(key) && run[key].is_string()) return ": " + run[key].get<std::string>();
  }
  return "";
}

MetricGate compare_metric(const std::string& name, const std::vector<double>& base, const std::vector<double>& cand,
                          const GateOptions& options) {
  stats::AbOptions ab;
  ab.higher_is_better = higher_is_better(name);
  ab.threshold = options.threshold;
  ab.alpha = options.alpha;
  ab.seed = options.seed;
  ab.resamples = options.resamples;
  MetricGate m{name, ab.higher_is_better, stats::ab_verdict(base, cand, ab), std::nullopt, false};
  const auto have = static_cast<int>(std::min(base.size(), cand.size()));
  if (m.result.more) {
    m.more_repetitions = std::max(1, m.result.more->per_side - have);
    m.more_capped = m.result.more->capped;
  } else if (m.result.verdict == stats::Verdict::Inconclusive && have < ab.min_samples) {
    m.more_repetitions = ab.min_samples - have;  // the test cannot run below min_samples per side
  }
  return m;
}

// The verdict from the runs themselves, or "" when they leave it to the headline metric.
std::string run_level_verdict(const nlohmann::json& base, const nlohmann::json& cand, std::string& reason,
                              const std::string& base_label, const std::string& cand_label) {
  if (is_unsafe(base) || is_unsafe(cand)) {
    reason = "unsafe: barriers none measures the floor; such runs never gate";
    return "unsafe";
  }
  if (status_of(base) == "failed" || status_of(cand) == "failed") {
    reason = status_of(base) == "failed" ? "failed: the base run (" + base_label + ") failed" + why(base)
                                         : "failed: the candidate run (" + cand_label + ") failed" + why(cand);
    return "failed";
  }
  for (const auto* side : {&base, &cand}) {
    if (status_of(*side) == "incorrect") {
      reason = std::string("incorrect: the ") +
               (side == &base ? "base run (" + base_label : "candidate run (" + cand_label) + ") is marked incorrect" +
               why(*side);
      return "incorrect";
    }
  }
  const auto& bf = base.value("fingerprint", nlohmann::json());
  const auto& cf = cand.value("fingerprint", nlohmann::json());
  if (bf.is_null() || cf.is_null()) {
    reason = std::string("incorrect: the ") + (bf.is_null() ? "base" : "candidate") +
             " run has no fingerprint, so its output cannot be checked";
    return "incorrect";
  }
  try {
    const std::string difference = compare_fingerprints(fingerprint_from_json(bf), fingerprint_from_json(cf));
    if (!difference.empty()) {
      reason = "incorrect: the outputs differ (" + difference + ")";
      return "incorrect";
    }
  } catch (const nlohmann::json::exception& e) {
    throw UsageError("a fingerprint in " + base_label + " or " + cand_label + " is malformed: " + e.what());
  }
  return "";
}

}  // namespace

std::string headline_metric(const nlohmann::json& base_run, const nlohmann::json& cand_run,
                            const GateOptions& options) {
  if (!options.metric.empty()) return options.metric;
  for (const auto* run : {&base_run, &cand_run}) {
    const auto& reps = run->value("repetitions", nlohmann::json::object());
    if (reps.contains("headline") && reps["headline"].is_string()) return reps["headline"].get<std::string>();
  }
  return "prefill.tok_s";
}

RunGate compare_runs(const nlohmann::json& base_run, const nlohmann::json& cand_run, const RunPair& pair,
                     const GateOptions& options, const std::string& base_label, const std::string& cand_label) {
  RunGate g;
  g.key = pair.key;
  g.config = pair.config;
  g.base_config = base_run["config"];
  g.cand_config = cand_run["config"];
  g.headline = headline_metric(base_run, cand_run, options);

  const auto base_values = metric_values(base_run, base_label);
  const auto cand_values = metric_values(cand_run, cand_label);
  std::string headline_problem;
  for (const auto& [name, base] : base_values) {
    const auto it = cand_values.find(name);
    if (it == cand_values.end() || base.empty() || it->second.empty()) continue;
    // A ratio of medians needs positive values; a gap that can be 0 or negative is left out.
    if (!all_positive(base) || !all_positive(it->second)) {
      if (name == g.headline) headline_problem = g.headline + " has values <= 0, so no ratio can be formed";
      continue;
    }
    g.metrics.push_back(compare_metric(name, base, it->second, options));
  }
  std::stable_partition(g.metrics.begin(), g.metrics.end(), [&](const MetricGate& m) { return m.name == g.headline; });

  g.verdict = run_level_verdict(base_run, cand_run, g.reason, base_label, cand_label);
  const MetricGate* headline = headline_of(g);
  if (!g.verdict.empty()) {
    if (headline) g.reason += " (" + g.headline + ": " + headline->result.reason + ")";
    return g;
  }
  if (!headline) {
    g.verdict = "inconclusive";
    if (headline_problem.empty()) {
      const bool in_base = base_values.count(g.headline) > 0;
      headline_problem = g.headline + " was not measured by the " +
                         (in_base ? "candidate run (" + cand_label + ")" : "base run (" + base_label + ")");
    }
    g.reason = "inconclusive: " + headline_problem;
    return g;
  }
  g.verdict = stats::to_string(headline->result.verdict);
  g.reason = g.headline + ": " + headline->result.reason;
  return g;
}

}  // namespace pb::gate
