// The gate's decision for one pair of matched runs: their statuses and fingerprints first
// (unsafe, failed, incorrect), then the headline metric's A/B verdict; every other metric both
// runs measured is compared too, for the report, but never decides the run.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "results/gate/gate_options.h"
#include "results/gate/gate_report.h"
#include "results/gate/run_matching.h"

namespace pb::gate {

// `base_run` and `cand_run` are entries of the files' `runs`; the labels name the files in
// messages. Throws UsageError for malformed samples or fingerprints.
RunGate compare_runs(const nlohmann::json& base_run, const nlohmann::json& cand_run, const RunPair& pair,
                     const GateOptions& options, const std::string& base_label, const std::string& cand_label);

// The metric a run's verdict comes from: --metric when given, else the run's
// repetitions.headline (the base run's; the candidate's when the base has none).
std::string headline_metric(const nlohmann::json& base_run, const nlohmann::json& cand_run, const GateOptions& options);

}  // namespace pb::gate
