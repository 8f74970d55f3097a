#include "results/gate/gate.h"

#include <set>
#include <string>

#include "harness/errors.h"
#include "results/gate/compare_runs.h"
#include "results/gate/run_matching.h"
#include "results/gate/run_metrics.h"

namespace pb::gate {
namespace {

std::string text_at(const nlohmann::json& doc, const char* block, const char* key) {
  if (!doc.contains(block) || !doc[block].is_object()) return "";
  const auto& b = doc[block];
  return b.contains(key) && b[key].is_string() ? b[key].get<std::string>() : "";
}

FileInfo file_info(const ResultFile& file, const std::string& label) {
  const auto& d = file.document();
  return {label, text_at(d, "device", "name"), text_at(d, "device", "driver_info"), text_at(d, "tool", "git_commit")};
}

void warn_about_devices(GateReport& r) {
  if (r.base.device != r.candidate.device) {
    r.warnings.push_back("the files come from different devices (base: " + r.base.device +
                         ", candidate: " + r.candidate.device + "); every difference below includes the device's");
  } else if (r.base.driver != r.candidate.driver) {
    r.warnings.push_back("the files come from different drivers of " + r.base.device + " (base: " + r.base.driver +
                         ", candidate: " + r.candidate.driver + "); every difference below includes the driver's");
  }
}

// Every timestamp waits for the work recorded before it. At phase or dispatch density a decode
// step (or a prefill one token at a time) carries a wait after almost every dispatch, on an H200
// about 10% of llama3-8b's decode (docs/GPU_FIGURES.md), and the waits order dispatches as
// barriers do: a change that overlaps dispatches or removes waits can then gate flat.
void warn_about_timestamps(GateReport& r, const ResultFile& base, const ResultFile& cand) {
  int dense = 0;
  for (const auto* file : {&base, &cand}) {
    for (const auto& run : file->runs()) {
      const nlohmann::json& c = run.value("config", nlohmann::json::object());
      const std::string profile = c.value("profile", "");
      const bool per_token = c.value("decode_tokens", 0) > 0 || c.value("prefill", "") == "decode-loop";
      if ((profile == "phase" || profile == "dispatch") && per_token) ++dense;
    }
  }
  if (dense == 0) return;
  r.warnings.push_back(std::to_string(dense) + " of the runs decode or prefill one token at a time with a timestamp at "
                       "every phase boundary or dispatch: each waits for the work before it, which slows every step "
                       "and orders its dispatches as a barrier would, so a change that overlaps dispatches or "
                       "removes waits can gate flat; gate throughput with profile submit (scenario profile-overhead "
                       "measures what the timestamps cost on this device)");
}

// A --metric that no run of either file measured is a typo, not an inconclusive result.
void require_metric_exists(const std::string& metric, const ResultFile& base, const ResultFile& cand,
                           const std::string& base_label, const std::string& cand_label) {
  std::set<std::string> known;
  for (const auto* file : {&base, &cand}) {
    for (const auto& run : file->runs()) {
      for (const auto& [name, values] : metric_values(run, file == &base ? base_label : cand_label)) known.insert(name);
    }
  }
  if (known.count(metric)) return;
  std::string list;
  for (const auto& name : known) list += (list.empty() ? "" : ", ") + name;
  throw UsageError("--metric " + metric + ": neither file measured it; the metrics are " +
                   (list.empty() ? "(none: the runs have no samples)" : list));
}

}  // namespace

GateReport gate_results(const ResultFile& base, const std::string& base_label, const ResultFile& cand,
                        const std::string& cand_label, const GateOptions& options) {
  check_alpha(options.alpha);
  if (!(options.threshold > 0.0 && options.threshold < 1.0)) {
    throw UsageError("--threshold: " + std::to_string(options.threshold) + " is out of range (0, 1)");
  }
  const auto& bs = base.document().value("schema", nlohmann::json());
  const auto& cs = cand.document().value("schema", nlohmann::json());
  if (bs != cs) {
    throw UsageError("cannot gate files of different schema versions: " + base_label + " is " + bs.dump() + ", " +
                     cand_label + " is " + cs.dump() + "; re-run both with one phasebench");
  }
  if (!options.metric.empty()) require_metric_exists(options.metric, base, cand, base_label, cand_label);

  GateReport r;
  r.base = file_info(base, base_label);
  r.candidate = file_info(cand, cand_label);
  r.threshold = options.threshold;
  r.alpha = options.alpha;
  r.ignored_keys.assign(options.ignored_keys.begin(), options.ignored_keys.end());
  warn_about_devices(r);
  warn_about_timestamps(r, base, cand);

  const Matching m = match_runs(base.runs(), cand.runs(), options.ignored_keys, base_label, cand_label);
  for (const auto& pair : m.pairs) {
    r.runs.push_back(compare_runs(base.runs()[pair.base_index], cand.runs()[pair.cand_index], pair, options, base_label,
                                  cand_label));
  }
  r.only_in_base = m.only_in_base;
  r.only_in_candidate = m.only_in_cand;
  return r;
}

GateReport gate_files(const std::filesystem::path& base, const std::filesystem::path& cand,
                      const GateOptions& options) {
  const ResultFile b = ResultFile::load(base);
  const ResultFile c = ResultFile::load(cand);
  return gate_results(b, base.string(), c, cand.string(), options);
}

}  // namespace pb::gate
