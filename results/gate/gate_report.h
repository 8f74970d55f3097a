// What the gate decided: one entry per matched run, each with a verdict taken from its headline
// metric and the comparison of every metric both runs measured. Printed as markdown
// (gate_markdown.h) or as JSON phasebench.gate/1 (gate_json.h, results/schema/gate.schema.json).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/stats/ab_verdict.h"

namespace pb::gate {

// Run verdicts. The first four come from the headline metric's stats::ab_verdict; the others
// from the runs themselves and take precedence in this order: unsafe (barriers none: measures
// a floor, never gates, never fails), failed (either run failed), incorrect (either run was
// marked incorrect or the fingerprints disagree).
inline constexpr const char* kVerdicts[] = {"win",       "regression", "flat",  "inconclusive",
                                            "incorrect", "unsafe",     "failed"};

struct MetricGate {
  std::string name;        // "prefill.tok_s", "prefill.phase.attn_qkv_ms", ...
  bool higher_is_better;   // rates yes, times no
  stats::AbResult result;  // medians, ratio, improvement (positive = better), CI, p, verdict
  // Additional repetitions per side likely to resolve an inconclusive result; absent otherwise.
  std::optional<int> more_repetitions;
  bool more_capped = false;  // the estimate hit the cap: unlikely to resolve at all
};

struct RunGate {
  std::string key;             // config_key(config)
  nlohmann::json config;       // the matched config (less any ignored keys)
  nlohmann::json base_config;  // the runs' full configs (they differ in ignored keys)
  nlohmann::json cand_config;
  std::string verdict;              // one of kVerdicts
  std::string reason;               // one line: the numbers or the cause behind the verdict
  std::string headline;             // the metric the verdict comes from
  std::vector<MetricGate> metrics;  // headline first, then the others by name
};

struct FileInfo {
  std::string file;        // as given on the command line
  std::string device;      // device.name
  std::string driver;      // device.driver_info
  std::string git_commit;  // tool.git_commit
};

struct GateReport {
  FileInfo base, candidate;
  double threshold = 0.01;
  double alpha = 0.05;
  std::vector<RunGate> runs;
  std::vector<nlohmann::json> only_in_base;  // configs without a partner
  std::vector<nlohmann::json> only_in_candidate;
  std::vector<std::string> ignored_keys;  // config keys left out of the matching
  std::vector<std::string> warnings;      // e.g. the files come from different devices

  // verdict -> count of runs, every verdict of kVerdicts present.
  std::map<std::string, int> summary() const;
};

// 0 when nothing regressed; 1 when a run regressed, was incorrect or failed.
int exit_status(const GateReport& report);

// The headline entry of a run, or nullptr when its headline metric was not compared.
const MetricGate* headline_of(const RunGate& run);

}  // namespace pb::gate
