// What one optimization cycle amounts to, from the gate report of its base and candidate: one
// row per matched run, and one cycle-level line for the cycle table.
//
// Several matched runs: the cycle's verdict is the worst that any gating run got (failed >
// incorrect > regression > inconclusive > win > flat), so a cycle is only a win when no run
// regressed or stayed undecided; its values are geometric means over the runs that gated on
// the cycle's metric (the base and candidate medians, and 1 + the improvement), and its
// interval is the envelope of theirs (lowest lower bound, highest upper bound): conservative,
// not a joint confidence interval. Unsafe runs never gate and are left out (a cycle of only
// unsafe runs is "unsafe"). One run: its own numbers, unchanged. Every run keeps its own row.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results/gate/gate_report.h"

namespace pb::history {

struct RunOutcome {
  std::string key;     // the matched config as key=value,...
  std::string config;  // the matched config, JSON text
  std::string metric;  // the run's headline metric
  std::string verdict;
  std::string reason;
  std::optional<double> base_value, cand_value;  // medians
  std::optional<double> delta, ci_low, ci_high;  // improvement, positive = better (fractions)
  std::optional<double> p_value;
};

struct CycleOutcome {
  std::string metric;
  std::string verdict;
  int gating_runs = 0;  // runs that entered the cycle's values and verdict
  std::optional<double> base_value, cand_value, delta, ci_low, ci_high;
  std::vector<RunOutcome> runs;
};

CycleOutcome summarize_cycle(const gate::GateReport& report);

}  // namespace pb::history
