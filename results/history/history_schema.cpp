#include "results/history/history_schema.h"

#include <map>
#include <optional>
#include <string>

#include "scenarios/stage_sample.h"

namespace pb::history {
namespace {

void to_v1(SqliteDb& db) {
  db.exec(R"sql(
    CREATE TABLE result_files (
      id INTEGER PRIMARY KEY,
      path TEXT NOT NULL,          -- absolute path when recorded
      recorded_at TEXT NOT NULL,   -- UTC, ISO 8601
      created TEXT,                -- the result file's own `created`
      device TEXT NOT NULL,        -- device.name
      git_commit TEXT NOT NULL     -- tool.git_commit
    );
    CREATE TABLE cycles (
      id INTEGER PRIMARY KEY,      -- the cycle number
      recorded_at TEXT NOT NULL,
      change TEXT NOT NULL,
      metric TEXT NOT NULL,
      base_file INTEGER NOT NULL REFERENCES result_files(id),
      cand_file INTEGER NOT NULL REFERENCES result_files(id),
      base_value REAL,             -- median of the metric (NULL when not compared)
      cand_value REAL,
      delta REAL,                  -- improvement, positive = better (fraction)
      ci_low REAL,
      ci_high REAL,
      verdict TEXT NOT NULL,
      kept INTEGER NOT NULL        -- 0 or 1
    );
  )sql");
}

// The best kept candidate value per metric, cycle by cycle; the base value stands in until a
// cycle is kept (it is the checkpoint every cycle so far was measured against).
void backfill_best_so_far(SqliteDb& db) {
  struct Best {
    double value;
    std::optional<int64_t> cycle;
  };
  std::map<std::string, Best> best;
  Statement read(db, "SELECT id, metric, base_value, cand_value, kept FROM cycles ORDER BY id");
  Statement write(db, "UPDATE cycles SET best_so_far = ?, best_cycle = ? WHERE id = ?");
  while (read.step()) {
    const int64_t id = read.integer(0);
    const std::string metric = read.text(1);
    const bool higher = higher_is_better(metric);
    const auto better = [&](double a, double b) { return higher ? a > b : a < b; };
    auto it = best.find(metric);
    if (read.integer(4) && !read.is_null(3)) {
      const double cand = read.real(3);
      if (it == best.end() || !it->second.cycle || better(cand, it->second.value)) {
        it = best.insert_or_assign(metric, Best{cand, id}).first;
      }
    }
    std::optional<double> value = it != best.end() ? std::optional(it->second.value) : read.optional_real(2);
    write.bind(1, value);
    if (it != best.end() && it->second.cycle) {
      write.bind(2, *it->second.cycle);
    } else {
      write.bind_null(2);
    }
    write.bind(3, id).run();
    write.reset();
  }
}

void to_v2(SqliteDb& db) {
  db.exec(R"sql(
    ALTER TABLE cycles ADD COLUMN best_so_far REAL;   -- best kept candidate value of the metric
    ALTER TABLE cycles ADD COLUMN best_cycle INTEGER; -- the cycle holding it; NULL = a base value
    ALTER TABLE cycles ADD COLUMN runs INTEGER NOT NULL DEFAULT 1;  -- matched runs that gated
    ALTER TABLE cycles ADD COLUMN gate TEXT;          -- the phasebench.gate/1 report, JSON
    CREATE TABLE cycle_runs (
      cycle INTEGER NOT NULL REFERENCES cycles(id),
      run_key TEXT NOT NULL,       -- the matched config as key=value,...
      config TEXT NOT NULL,        -- the matched config, JSON
      metric TEXT NOT NULL,        -- the run's headline metric
      verdict TEXT NOT NULL,
      reason TEXT NOT NULL,
      base_value REAL,
      cand_value REAL,
      delta REAL,
      ci_low REAL,
      ci_high REAL,
      p_value REAL,
      PRIMARY KEY (cycle, run_key)
    );
  )sql");
  backfill_best_so_far(db);
}

using Migration = void (*)(SqliteDb&);
constexpr Migration kMigrations[kHistorySchemaVersion] = {to_v1, to_v2};  // [v] takes v to v + 1

}  // namespace

DbKind classify(SqliteDb& db) {
  Statement tables(db, "SELECT count(*), sum(name = 'meta') FROM sqlite_master");
  tables.step();
  if (tables.integer(0) == 0) return DbKind::Empty;
  if (tables.integer(1) == 0) return DbKind::Foreign;
  try {
    Statement app(db, "SELECT value FROM meta WHERE key = 'application'");
    return app.step() && app.text(0) == kHistoryApplication ? DbKind::Phasebench : DbKind::Foreign;
  } catch (const SqliteError& e) {
    if (e.code == SQLITE_ERROR) return DbKind::Foreign;  // a table named meta with other columns
    throw;
  }
}

int schema_version(SqliteDb& db) {
  Statement s(db, "SELECT value FROM meta WHERE key = 'schema_version'");
  if (!s.step()) throw SqliteError(SQLITE_CORRUPT, db.path().string() + ": meta has no schema_version");
  try {
    return std::stoi(s.text(0));
  } catch (const std::exception&) {
    throw SqliteError(SQLITE_CORRUPT, db.path().string() + ": meta.schema_version is \"" + s.text(0) + "\"");
  }
}

void create_meta(SqliteDb& db) {
  db.exec(
      "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
      "INSERT INTO meta VALUES ('application', 'phasebench'), ('schema_version', '0');");
}

void migrate(SqliteDb& db, int from) {
  for (int v = from; v < kHistorySchemaVersion; ++v) kMigrations[v](db);
  Statement s(db, "UPDATE meta SET value = ? WHERE key = 'schema_version'");
  s.bind(1, std::to_string(kHistorySchemaVersion)).run();
}

}  // namespace pb::history
