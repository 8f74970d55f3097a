#include "results/gate/gate_report.h"

namespace pb::gate {

std::map<std::string, int> GateReport::summary() const {
  std::map<std::string, int> counts;
  for (const char* v : kVerdicts) counts[v] = 0;
  for (const auto& run : runs) ++counts[run.verdict];
  return counts;
}

int exit_status(const GateReport& report) {
  for (const auto& run : report.runs) {
    if (run.verdict == "regression" || run.verdict == "incorrect" || run.verdict == "failed") return 1;
  }
  return 0;
}

const MetricGate* headline_of(const RunGate& run) {
  for (const auto& m : run.metrics) {
    if (m.name == run.headline) return &m;
  }
  return nullptr;
}

}  // namespace pb::gate
