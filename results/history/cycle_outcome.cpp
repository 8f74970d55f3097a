#include "results/history/cycle_outcome.h"

#include <algorithm>
#include <cmath>

namespace pb::history {
namespace {

// Larger = worse; the cycle takes the worst of its runs.
int severity(const std::string& verdict) {
  static const char* order[] = {"flat", "win", "inconclusive", "regression", "incorrect", "failed"};
  for (int i = 0; i < 6; ++i) {
    if (verdict == order[i]) return i;
  }
  return -1;  // unsafe: never gates
}

RunOutcome outcome_of(const gate::RunGate& run) {
  RunOutcome o{run.key, run.config.dump(), run.headline, run.verdict, run.reason, {}, {}, {}, {}, {}, {}};
  if (const auto* h = gate::headline_of(run)) {
    o.base_value = h->result.base_median;
    o.cand_value = h->result.cand_median;
    o.delta = h->result.improvement;
    if (h->result.improvement_ci) {
      o.ci_low = h->result.improvement_ci->lower;
      o.ci_high = h->result.improvement_ci->upper;
    }
    if (h->result.rank_test) o.p_value = h->result.rank_test->p_value;
  }
  return o;
}

}  // namespace

CycleOutcome summarize_cycle(const gate::GateReport& report) {
  CycleOutcome c;
  for (const auto& run : report.runs) c.runs.push_back(outcome_of(run));
  const auto gating = [](const RunOutcome& r) { return severity(r.verdict) >= 0; };
  const auto first = std::find_if(c.runs.begin(), c.runs.end(), gating);
  if (first == c.runs.end()) {
    c.verdict = "unsafe";
    c.metric = c.runs.empty() ? "" : c.runs.front().metric;
    return c;
  }
  c.metric = first->metric;
  c.verdict = first->verdict;
  double log_base = 0, log_cand = 0, log_gain = 0;
  int valued = 0;
  bool all_intervals = true;
  for (const auto& r : c.runs) {
    if (!gating(r)) continue;
    ++c.gating_runs;
    if (severity(r.verdict) > severity(c.verdict)) c.verdict = r.verdict;
    if (r.metric != c.metric || !r.base_value || !r.cand_value || !r.delta) continue;
    ++valued;
    log_base += std::log(*r.base_value);
    log_cand += std::log(*r.cand_value);
    log_gain += std::log1p(*r.delta);
    if (r.ci_low && r.ci_high) {
      c.ci_low = c.ci_low ? std::min(*c.ci_low, *r.ci_low) : *r.ci_low;
      c.ci_high = c.ci_high ? std::max(*c.ci_high, *r.ci_high) : *r.ci_high;
    } else {
      all_intervals = false;
    }
  }
  if (valued > 0) {
    c.base_value = std::exp(log_base / valued);
    c.cand_value = std::exp(log_cand / valued);
    c.delta = std::expm1(log_gain / valued);
  }
  if (!all_intervals) c.ci_low = c.ci_high = std::nullopt;  // an envelope missing a run would claim too much
  return c;
}

}  // namespace pb::history
