#include "results/history/cycle_store.h"

#include <chrono>
#include <ctime>

#include "harness/errors.h"
#include "results/metric_summary.h"
#include "results/gate/gate_json.h"
#include "scenarios/stage_sample.h"

namespace pb::history {
namespace {

std::string text_at(const nlohmann::json& doc, const char* block, const char* key) {
  if (!doc.contains(block) || !doc[block].is_object() || !doc[block].contains(key)) return "";
  return doc[block][key].is_string() ? doc[block][key].get<std::string>() : "";
}

int64_t insert_file(SqliteDb& db, const FileRecord& f, const std::string& now) {
  Statement s(db, "INSERT INTO result_files (path, recorded_at, created, device, git_commit) VALUES (?, ?, ?, ?, ?)");
  s.bind(1, f.path).bind(2, now).bind(3, f.created).bind(4, f.device).bind(5, f.git_commit).run();
  return db.last_insert_rowid();
}

void insert_runs(SqliteDb& db, int64_t cycle, const CycleOutcome& outcome) {
  Statement s(db,
              "INSERT INTO cycle_runs (cycle, run_key, config, metric, verdict, reason, base_value, "
              "cand_value, delta, ci_low, ci_high, p_value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const auto& r : outcome.runs) {
    s.bind(1, cycle).bind(2, r.key).bind(3, r.config).bind(4, r.metric).bind(5, r.verdict).bind(6, r.reason);
    s.bind(7, r.base_value).bind(8, r.cand_value).bind(9, r.delta).bind(10, r.ci_low).bind(11, r.ci_high);
    s.bind(12, r.p_value).run();
    s.reset();
  }
}

// The best kept candidate value of the metric so far (this cycle included, as it is already
// inserted), else the base value of this cycle.
void update_best(SqliteDb& db, CycleRow& row) {
  const bool higher = higher_is_better(row.metric);
  Statement s(db,
              "SELECT id, cand_value FROM cycles WHERE metric = ? AND kept = 1 AND cand_value IS NOT NULL "
              "AND id <= ? ORDER BY id");
  s.bind(1, row.metric).bind(2, row.cycle);
  while (s.step()) {
    const double v = s.real(1);
    if (!row.best_cycle || (higher ? v > *row.best_so_far : v < *row.best_so_far)) {
      row.best_so_far = v;
      row.best_cycle = s.integer(0);
    }
  }
  if (!row.best_cycle) row.best_so_far = row.base_value;
  Statement u(db, "UPDATE cycles SET best_so_far = ?, best_cycle = ? WHERE id = ?");
  u.bind(1, row.best_so_far);
  row.best_cycle ? u.bind(2, *row.best_cycle) : u.bind_null(2);
  u.bind(3, row.cycle).run();
}

}  // namespace

FileRecord file_record(const ResultFile& file, const std::filesystem::path& path) {
  const auto& d = file.document();
  return {std::filesystem::absolute(path).lexically_normal().string(),
          d.contains("created") && d["created"].is_string() ? d["created"].get<std::string>() : "",
          text_at(d, "device", "name"), text_at(d, "tool", "git_commit")};
}

bool decide_kept(const std::string& verdict, bool revert, bool keep) {
  if (revert && keep) throw UsageError("--revert and --keep contradict each other; give one");
  if (keep) return true;
  return verdict == "win" && !revert;
}

CycleRow record_cycle(HistoryDb& db, const std::string& change, bool kept, const gate::GateReport& report,
                      const FileRecord& base, const FileRecord& cand) {
  const CycleOutcome outcome = summarize_cycle(report);
  CycleRow row;
  row.recorded_at = utc_timestamp();
  row.change = change;
  row.metric = outcome.metric;
  row.base_value = outcome.base_value;
  row.cand_value = outcome.cand_value;
  row.delta = outcome.delta;
  row.ci_low = outcome.ci_low;
  row.ci_high = outcome.ci_high;
  row.verdict = outcome.verdict;
  row.kept = kept;
  row.runs = outcome.gating_runs;

  SqliteDb& sql = db.sql();
  Transaction write(sql);
  const int64_t base_id = insert_file(sql, base, row.recorded_at);
  const int64_t cand_id = insert_file(sql, cand, row.recorded_at);
  Statement s(sql,
              "INSERT INTO cycles (recorded_at, change, metric, base_file, cand_file, base_value, cand_value, "
              "delta, ci_low, ci_high, verdict, kept, runs, gate) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, row.recorded_at).bind(2, row.change).bind(3, row.metric).bind(4, base_id).bind(5, cand_id);
  s.bind(6, row.base_value).bind(7, row.cand_value).bind(8, row.delta).bind(9, row.ci_low).bind(10, row.ci_high);
  s.bind(11, row.verdict).bind(12, int64_t{kept}).bind(13, int64_t{row.runs}).bind(14, gate::to_json(report).dump());
  s.run();
  row.cycle = sql.last_insert_rowid();
  insert_runs(sql, row.cycle, outcome);
  update_best(sql, row);
  write.commit();
  return row;
}

std::vector<CycleRow> list_cycles(HistoryDb& db) {
  Statement s(db.sql(),
              "SELECT id, recorded_at, change, metric, base_value, cand_value, delta, ci_low, ci_high, "
              "verdict, kept, best_so_far, best_cycle, runs FROM cycles ORDER BY id");
  std::vector<CycleRow> rows;
  while (s.step()) {
    CycleRow r;
    r.cycle = s.integer(0);
    r.recorded_at = s.text(1);
    r.change = s.text(2);
    r.metric = s.text(3);
    r.base_value = s.optional_real(4);
    r.cand_value = s.optional_real(5);
    r.delta = s.optional_real(6);
    r.ci_low = s.optional_real(7);
    r.ci_high = s.optional_real(8);
    r.verdict = s.text(9);
    r.kept = s.integer(10) != 0;
    r.best_so_far = s.optional_real(11);
    if (!s.is_null(12)) r.best_cycle = s.integer(12);
    r.runs = static_cast<int>(s.integer(13));
    rows.push_back(r);
  }
  return rows;
}

std::vector<FileRow> list_files(HistoryDb& db) {
  Statement s(db.sql(),
              "SELECT c.id, 'base', f.recorded_at, f.device, f.git_commit, f.path, c.verdict "
              "FROM cycles c JOIN result_files f ON f.id = c.base_file "
              "UNION ALL "
              "SELECT c.id, 'candidate', f.recorded_at, f.device, f.git_commit, f.path, c.verdict "
              "FROM cycles c JOIN result_files f ON f.id = c.cand_file "
              "ORDER BY 1, 2");
  std::vector<FileRow> rows;
  while (s.step()) {
    rows.push_back({s.integer(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5), s.text(6)});
  }
  return rows;
}

}  // namespace pb::history
