// Reading and writing optimization cycles in the history: one row per cycle (what changed, the
// outcome, whether it was kept, the best checkpoint so far), one per matched run, and the two
// result files it compared.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "results/gate/gate_report.h"
#include "results/history/cycle_outcome.h"
#include "results/history/history_db.h"
#include "results/result_file.h"

namespace pb::history {

struct FileRecord {
  std::string path;        // absolute
  std::string created;     // the file's `created`
  std::string device;      // device.name
  std::string git_commit;  // tool.git_commit
};

FileRecord file_record(const ResultFile& file, const std::filesystem::path& path);

// A win is kept unless reverted; anything else only when the user keeps it anyway. Throws
// UsageError when both are asked for.
bool decide_kept(const std::string& verdict, bool revert, bool keep);

struct CycleRow {
  int64_t cycle = 0;
  std::string recorded_at;
  std::string change;
  std::string metric;
  std::optional<double> base_value, cand_value;  // medians (geometric means over runs)
  std::optional<double> delta, ci_low, ci_high;  // improvement, positive = better
  std::string verdict;
  bool kept = false;
  // Best kept candidate value of `metric` up to and including this cycle; before any cycle of
  // the metric was kept, the base value (the checkpoint being measured against).
  std::optional<double> best_so_far;
  std::optional<int64_t> best_cycle;  // the cycle whose candidate holds it; empty for a base value
  int runs = 0;                       // matched runs that gated
};

// Stores the cycle in one write transaction (safe beside other writers) and returns its row.
CycleRow record_cycle(HistoryDb& db, const std::string& change, bool kept, const gate::GateReport& report,
                      const FileRecord& base, const FileRecord& cand);

std::vector<CycleRow> list_cycles(HistoryDb& db);

struct FileRow {
  int64_t cycle = 0;
  std::string role;  // "base" or "candidate"
  std::string recorded_at, device, git_commit, path, verdict;
};

// Every result file recorded, cycle by cycle, base before candidate.
std::vector<FileRow> list_files(HistoryDb& db);

}  // namespace pb::history
