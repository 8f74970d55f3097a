#include "results/gate/gate_markdown.h"

#include <algorithm>
#include <set>

#include "results/gate/run_matching.h"
#include "results/gate/table_format.h"

namespace pb::gate {
namespace {

std::string file_line(const FileInfo& f) {
  return "`" + f.file + "` (" + (f.device.empty() ? "unknown device" : f.device) + ", commit " +
         (f.git_commit.empty() ? "unknown" : f.git_commit) + ")";
}

std::string medians(const MetricGate& m) {
  return significant(m.result.base_median) + " → " + significant(m.result.cand_median);
}

std::string delta(const MetricGate& m) {
  const auto& ci = m.result.improvement_ci;
  return delta_with_interval(m.result.improvement, ci ? std::optional(ci->lower) : std::nullopt,
                             ci ? std::optional(ci->upper) : std::nullopt);
}

std::optional<double> p_of(const MetricGate& m) {
  return m.result.rank_test ? std::optional(m.result.rank_test->p_value) : std::nullopt;
}

std::string metric_verdict(const MetricGate& m) {
  std::string v = stats::to_string(m.result.verdict);
  if (m.result.verdict == stats::Verdict::Win || m.result.verdict == stats::Verdict::Regression) {
    v = "**" + v + "**";
  }
  if (m.more_repetitions) {
    const auto have = std::min(m.result.base_count, m.result.cand_count);
    v += m.more_capped
             ? " (unlikely to resolve: over " + std::to_string(have + *m.more_repetitions) + " repetitions per side)"
             : " (needs ~" + std::to_string(*m.more_repetitions) + " more repetitions per side)";
  }
  return v;
}

// Which axes were left out of the matching, and how the sides differ in them (as seen in the
// first run; `ab --a-set/--b-set` gives every run the same overrides).
std::string ignored_line(const GateReport& r) {
  if (r.ignored_keys.empty() || r.runs.empty()) return "";
  std::string keys, differences;
  const auto& run = r.runs.front();
  for (const auto& key : r.ignored_keys) {
    const auto value = [&](const nlohmann::json& c) {
      return c.contains(key) ? (c[key].is_string() ? c[key].get<std::string>() : c[key].dump()) : "(none)";
    };
    keys += (keys.empty() ? "" : ", ") + key;
    if (value(run.base_config) != value(run.cand_config)) {
      differences +=
          (differences.empty() ? "" : ", ") + key + ": " + value(run.base_config) + " → " + value(run.cand_config);
    }
  }
  return "- runs matched without " + keys + (differences.empty() ? "" : "; the sides differ in " + differences) + "\n";
}

void write_run_table(std::ostream& out, const GateReport& r, const std::set<std::string>& keys) {
  out << "| run | headline | base → cand | Δ (95% CI) | p | verdict |\n"
      << "|---|---|---|---|---|---|\n";
  for (const auto& run : r.runs) {
    const std::string config = keys.empty() ? "all" : describe_config(run.config, keys);
    const MetricGate* h = headline_of(run);
    const bool statistical =
        run.verdict == "win" || run.verdict == "regression" || run.verdict == "flat" || run.verdict == "inconclusive";
    std::string verdict = h && statistical ? metric_verdict(*h) : "**" + run.verdict + "**";
    if (!h && statistical) verdict = run.verdict + " (headline not compared)";
    out << "| " << config << " | " << run.headline << " | " << (h ? medians(*h) : "-") << " | " << (h ? delta(*h) : "-")
        << " | " << (h ? p_value_text(p_of(*h)) : "-") << " | " << verdict << " |\n";
  }
}

void write_metric_table(std::ostream& out, const RunGate& run, const std::string& title) {
  out << "\n### " << title << ": every metric\n\n"
      << "| metric | base → cand | Δ (95% CI) | p | verdict |\n|---|---|---|---|---|\n";
  for (const auto& m : run.metrics) {
    out << "| " << (m.name == run.headline ? "**" + m.name + "**" : m.name) << " | " << medians(m) << " | " << delta(m)
        << " | " << p_value_text(p_of(m)) << " | " << metric_verdict(m) << " |\n";
  }
}

void write_unmatched(std::ostream& out, const char* side, const std::vector<nlohmann::json>& configs,
                     const std::set<std::string>& keys) {
  if (configs.empty()) return;
  out << "- only in " << side << " (not gated):";
  for (const auto& c : configs)
    out << " `" << describe_config(c, keys.empty() ? std::set<std::string>{"model"} : keys) << "`";
  out << "\n";
}

}  // namespace

void write_markdown(std::ostream& out, const GateReport& r, const MarkdownOptions& options) {
  std::vector<nlohmann::json> configs;
  for (const auto& run : r.runs) configs.push_back(run.config);
  for (const auto& c : r.only_in_base) configs.push_back(c);
  for (const auto& c : r.only_in_candidate) configs.push_back(c);
  const std::set<std::string> keys = varying_keys(configs);
  std::set<std::string> common;
  if (!r.runs.empty()) {
    for (const auto& [name, value] : r.runs.front().config.items()) {
      if (!keys.count(name)) common.insert(name);
    }
  }

  out << "## A/B gate: `" << r.base.file << "` → `" << r.candidate.file << "`\n\n"
      << "- base: " << file_line(r.base) << "\n- candidate: " << file_line(r.candidate) << "\n"
      << "- threshold ±" << significant(100.0 * r.threshold) << "%, alpha " << significant(r.alpha)
      << "; Δ is the improvement (positive = better), with a bootstrap 95% interval of the ratio of "
         "medians and a Mann–Whitney p\n";
  if (!r.runs.empty()) out << "- common config: " << describe_config(r.runs.front().config, common) << "\n";
  out << ignored_line(r);
  for (const auto& w : r.warnings) out << "- **warning**: " << w << "\n";
  out << "\n";
  write_run_table(out, r, keys);

  bool noted = false;
  for (const auto& run : r.runs) {
    if (run.verdict == "win" || run.verdict == "regression" || run.verdict == "flat") continue;
    if (!noted) out << "\n";
    noted = true;
    out << "- " << (keys.empty() ? "the run" : describe_config(run.config, keys)) << ": " << run.reason << "\n";
  }
  write_unmatched(out, "base", r.only_in_base, keys);
  write_unmatched(out, "candidate", r.only_in_candidate, keys);

  if (options.every_metric) {
    for (const auto& run : r.runs) {
      if (run.metrics.size() > 1)
        write_metric_table(out, run, keys.empty() ? "the run" : describe_config(run.config, keys));
    }
  }
  std::string counts;
  for (const auto& [verdict, n] : r.summary()) {
    if (n > 0) counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + verdict;
  }
  out << "\n**" << (exit_status(r) == 0 ? "pass" : "FAIL") << "**: " << counts
      << (exit_status(r) == 0 ? " (nothing regressed)" : "") << "\n";
}

}  // namespace pb::gate
