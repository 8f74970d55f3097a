// The tables an optimization write-up needs: the cycle table (`phasebench cycles`) and the list
// of recorded result files (`phasebench history`), as markdown or JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "results/history/cycle_store.h"

namespace pb::history {

// [{"cycle", "change", "metric", "base_value", "cand_value", "delta", "ci_low", "ci_high",
//   "verdict", "kept", "best_so_far"}]: delta and its interval as fractions, positive = better;
// missing values are null.
nlohmann::json cycles_json(const std::vector<CycleRow>& rows);

// | cycle | change | metric | base → cand | Δ (95% CI) | verdict | kept | best so far |
void write_cycles_markdown(std::ostream& out, const std::vector<CycleRow>& rows);

// [{"cycle", "role", "recorded_at", "device", "git_commit", "file", "verdict"}]
nlohmann::json files_json(const std::vector<FileRow>& rows);

// | when | device | git commit | file | cycle | role | verdict |
void write_files_markdown(std::ostream& out, const std::vector<FileRow>& rows);

}  // namespace pb::history
