#include "results/history/cycle_table.h"

#include "results/gate/table_format.h"

namespace pb::history {
namespace {

nlohmann::json or_null(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

std::string value_text(const std::optional<double>& v) { return v ? gate::significant(*v) : "-"; }

// Table cells cannot hold a pipe or a line break.
std::string cell(std::string text) {
  for (auto& c : text) {
    if (c == '|') c = '/';
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

}  // namespace

nlohmann::json cycles_json(const std::vector<CycleRow>& rows) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : rows) {
    list.push_back({{"cycle", r.cycle},
                    {"change", r.change},
                    {"metric", r.metric},
                    {"base_value", or_null(r.base_value)},
                    {"cand_value", or_null(r.cand_value)},
                    {"delta", or_null(r.delta)},
                    {"ci_low", or_null(r.ci_low)},
                    {"ci_high", or_null(r.ci_high)},
                    {"verdict", r.verdict},
                    {"kept", r.kept},
                    {"best_so_far", or_null(r.best_so_far)}});
  }
  return list;
}

void write_cycles_markdown(std::ostream& out, const std::vector<CycleRow>& rows) {
  out << "| cycle | change | metric | base → cand | Δ (95% CI) | verdict | kept | best so far |\n"
      << "|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : rows) {
    const std::string delta = r.delta ? gate::delta_with_interval(*r.delta, r.ci_low, r.ci_high) : "-";
    const std::string best =
        value_text(r.best_so_far) + (r.best_cycle ? " (cycle " + std::to_string(*r.best_cycle) + ")" : " (base)");
    out << "| " << r.cycle << " | " << cell(r.change) << " | " << r.metric << " | " << value_text(r.base_value) << " → "
        << value_text(r.cand_value) << " | " << delta << " | " << r.verdict
        << (r.runs > 1 ? " (" + std::to_string(r.runs) + " runs)" : "") << " | " << (r.kept ? "yes" : "no") << " | "
        << best << " |\n";
  }
}

nlohmann::json files_json(const std::vector<FileRow>& rows) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : rows) {
    list.push_back({{"cycle", r.cycle},
                    {"role", r.role},
                    {"recorded_at", r.recorded_at},
                    {"device", r.device},
                    {"git_commit", r.git_commit},
                    {"file", r.path},
                    {"verdict", r.verdict}});
  }
  return list;
}

void write_files_markdown(std::ostream& out, const std::vector<FileRow>& rows) {
  out << "| when | device | git commit | file | cycle | role | verdict |\n|---|---|---|---|---|---|---|\n";
  for (const auto& r : rows) {
    out << "| " << r.recorded_at << " | " << cell(r.device) << " | " << r.git_commit << " | " << cell(r.path) << " | "
        << r.cycle << " | " << r.role << " | " << r.verdict << " |\n";
  }
}

}  // namespace pb::history
