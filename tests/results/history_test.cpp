// The cycle history: recording and listing cycles, migrations from older schema versions,
// concurrent writers, and files it must refuse and leave untouched.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "harness/errors.h"
#include "result_fixture.h"
#include "results/gate/gate.h"
#include "results/history/cycle_store.h"
#include "results/history/cycle_table.h"
#include "results/history/history_db.h"
#include "results/history/history_schema.h"

namespace pb::test {
namespace {

using namespace pb::history;
namespace fs = std::filesystem;

struct Cycle {
  gate::GateReport report;
  FileRecord base, cand;
};

Cycle cycle_of(const fs::path& dir, double base_median, double cand_median, int n = 11) {
  RunSpec b, c;
  b.tok_s = spread_values(base_median, 0.005, n);
  c.tok_s = spread_values(cand_median, 0.005, n, 3);
  const auto bp = write_json(dir, "base.json", make_result({make_run(b)}));
  const auto cp = write_json(dir, "cand.json", make_result({make_run(c)}, "llvmpipe (test)", "def5678"));
  const ResultFile bf = ResultFile::load(bp), cf = ResultFile::load(cp);
  return {gate::gate_results(bf, bp.string(), cf, cp.string(), {}), file_record(bf, bp), file_record(cf, cp)};
}

CycleRow record(HistoryDb& db, const Cycle& c, const std::string& change, bool revert = false, bool keep = false) {
  const bool kept = decide_kept(summarize_cycle(c.report).verdict, revert, keep);
  return record_cycle(db, change, kept, c.report, c.base, c.cand);
}

// The file's bytes and whether SQLite left sidecar files next to it.
void expect_untouched(const fs::path& path, const std::string& before) {
  EXPECT_EQ(read_text(path), before) << path;
  for (const char* suffix : {"-wal", "-shm", "-journal"}) EXPECT_FALSE(fs::exists(path.string() + suffix)) << suffix;
}

std::string refusal(const fs::path& path) {
  try {
    HistoryDb db(path);
  } catch (const UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << "opened " << path;
  return "";
}

TEST(History, RecordsCyclesKeptAndBestSoFar) {
  const auto dir = fresh_dir("history-record");
  HistoryDb db(dir / "h.sqlite");
  const auto c1 = record(db, cycle_of(dir, 100, 110), "fuse the QKV projection");
  EXPECT_EQ(c1.cycle, 1);
  EXPECT_EQ(c1.verdict, "win");
  EXPECT_TRUE(c1.kept);
  EXPECT_DOUBLE_EQ(*c1.best_so_far, 110);
  EXPECT_EQ(*c1.best_cycle, 1);

  const auto c2 = record(db, cycle_of(dir, 110, 100), "wider workgroups");
  EXPECT_EQ(c2.verdict, "regression");
  EXPECT_FALSE(c2.kept);
  EXPECT_DOUBLE_EQ(*c2.best_so_far, 110);  // still cycle 1's candidate

  const auto c3 = record(db, cycle_of(dir, 110, 125), "unrolled loop", /*revert=*/true);
  EXPECT_EQ(c3.verdict, "win");
  EXPECT_FALSE(c3.kept);  // reverted: a win that is not kept does not move the best
  EXPECT_DOUBLE_EQ(*c3.best_so_far, 110);

  const auto c4 = record(db, cycle_of(dir, 110, 110.1, 21), "cleanup", false, /*keep=*/true);
  EXPECT_EQ(c4.verdict, "flat");
  EXPECT_TRUE(c4.kept);
  EXPECT_DOUBLE_EQ(*c4.best_so_far, 110.1);
  EXPECT_EQ(*c4.best_cycle, 4);

  const auto rows = list_cycles(db);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1].change, "wider workgroups");
  EXPECT_NEAR(*rows[0].delta, 0.10, 1e-9);
  EXPECT_LT(*rows[0].ci_low, 0.10);
  EXPECT_GT(*rows[0].ci_high, 0.10);

  const auto json = cycles_json(rows);
  ASSERT_EQ(json.size(), 4u);
  std::vector<std::string> keys;
  for (const auto& [k, v] : json[0].items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"base_value", "best_so_far", "cand_value", "change", "ci_high", "ci_low",
                                            "cycle", "delta", "kept", "metric", "verdict"}));
  EXPECT_EQ(json[2]["kept"], false);
  EXPECT_EQ(json[0]["metric"], "prefill.tok_s");

  std::ostringstream md;
  write_cycles_markdown(md, rows);
  EXPECT_NE(md.str().find("| 1 | fuse the QKV projection | prefill.tok_s | 100 → 110 | +10.00% ["), std::string::npos)
      << md.str();
  EXPECT_NE(md.str().find("| win | yes | 110 (cycle 1) |"), std::string::npos) << md.str();

  const auto files = list_files(db);
  ASSERT_EQ(files.size(), 8u);
  EXPECT_EQ(files[0].role, "base");
  EXPECT_EQ(files[1].role, "candidate");
  EXPECT_EQ(files[1].git_commit, "def5678");
  EXPECT_EQ(files[1].verdict, "win");
  EXPECT_TRUE(fs::path(files[0].path).is_absolute());
}

TEST(History, TheDatabaseIsInWalMode) {
  const auto dir = fresh_dir("history-wal");
  HistoryDb db(dir / "h.sqlite");
  Statement s(db.sql(), "PRAGMA journal_mode");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.text(0), "wal");
}

TEST(History, SeveralRunsSummarizeAsTheWorstVerdictAndGeometricMeans) {
  gate::GateReport report;
  const auto run = [](const std::string& key, const std::string& verdict, double base, double cand, double lo,
                      double hi) {
    gate::RunGate g;
    g.key = key;
    g.config = {{"submit", key}};
    g.verdict = verdict;
    g.headline = "prefill.tok_s";
    stats::AbResult r{};
    r.base_median = base;
    r.cand_median = cand;
    r.improvement = cand / base - 1;
    r.improvement_ci = stats::Interval{lo, hi};
    g.metrics.push_back({"prefill.tok_s", true, r, std::nullopt, false});
    return g;
  };
  report.runs = {run("a", "win", 100, 121, 0.15, 0.25), run("b", "inconclusive", 100, 100, -0.02, 0.03),
                 run("c", "unsafe", 100, 300, 1.5, 2.5)};
  const auto c = summarize_cycle(report);
  EXPECT_EQ(c.verdict, "inconclusive");
  EXPECT_EQ(c.gating_runs, 2);
  EXPECT_NEAR(*c.base_value, 100, 1e-9);
  EXPECT_NEAR(*c.cand_value, 110, 1e-9);  // sqrt(121 * 100): the unsafe run is left out
  EXPECT_NEAR(*c.delta, 0.10, 1e-9);
  EXPECT_DOUBLE_EQ(*c.ci_low, -0.02);
  EXPECT_DOUBLE_EQ(*c.ci_high, 0.25);
  EXPECT_EQ(c.runs.size(), 3u);
}

void create_v0(const fs::path& path) {
  SqliteDb db(path, true);
  db.exec(
      "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
      "INSERT INTO meta VALUES ('application', 'phasebench'), ('schema_version', '0');");
}

// Version 1 as it shipped: result_files and cycles, no best-so-far, no per-run rows.
void create_v1(const fs::path& path) {
  SqliteDb db(path, true);
  db.exec(R"sql(
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO meta VALUES ('application', 'phasebench'), ('schema_version', '1');
    CREATE TABLE result_files (id INTEGER PRIMARY KEY, path TEXT NOT NULL, recorded_at TEXT NOT NULL, created TEXT,
                               device TEXT NOT NULL, git_commit TEXT NOT NULL);
    CREATE TABLE cycles (id INTEGER PRIMARY KEY, recorded_at TEXT NOT NULL, change TEXT NOT NULL, metric TEXT NOT NULL,
                         base_file INTEGER NOT NULL REFERENCES result_files(id),
                         cand_file INTEGER NOT NULL REFERENCES result_files(id), base_value REAL, cand_value REAL,
                         delta REAL, ci_low REAL, ci_high REAL, verdict TEXT NOT NULL, kept INTEGER NOT NULL);
    INSERT INTO result_files VALUES (1, '/r/a.json', '2024-05-01T00:00:00Z', NULL, 'RX 9070', 'aaa'),
                                    (2, '/r/b.json', '2024-05-01T00:00:00Z', NULL, 'RX 9070', 'bbb'),
                                    (3, '/r/c.json', '2024-05-02T00:00:00Z', NULL, 'RX 9070', 'ccc');
    INSERT INTO cycles VALUES
      (1, '2024-05-01T00:00:00Z', 'first', 'decode.tok_s', 1, 2, 50, 55, 0.1, 0.08, 0.12, 'win', 1),
      (2, '2024-05-02T00:00:00Z', 'second', 'decode.tok_s', 2, 3, 55, 54, -0.018, -0.03, 0.0, 'inconclusive', 0),
      (3, '2024-05-03T00:00:00Z', 'timing', 'prefill.wall_ms', 2, 3, 20, 18, 0.11, 0.05, 0.2, 'win', 1);
  )sql");
}

int version_of(HistoryDb& db) { return schema_version(db.sql()); }

TEST(HistoryMigration, FromVersion0) {
  const auto path = fresh_dir("history-v0") / "h.sqlite";
  create_v0(path);
  HistoryDb db(path);
  EXPECT_EQ(version_of(db), kHistorySchemaVersion);
  EXPECT_TRUE(list_cycles(db).empty());
  record(db, cycle_of(path.parent_path(), 100, 110), "after migrating");
  EXPECT_EQ(list_cycles(db).size(), 1u);
}

TEST(HistoryMigration, FromVersion1KeepsEveryCycleAndFillsInTheBestSoFar) {
  const auto dir = fresh_dir("history-v1");
  const auto path = dir / "h.sqlite";
  create_v1(path);
  {
    HistoryDb db(path);
    EXPECT_EQ(version_of(db), kHistorySchemaVersion);
    const auto rows = list_cycles(db);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].change, "first");
    EXPECT_DOUBLE_EQ(*rows[0].best_so_far, 55);
    EXPECT_EQ(*rows[1].best_cycle, 1);
    EXPECT_DOUBLE_EQ(*rows[1].best_so_far, 55);  // cycle 2 was not kept
    EXPECT_DOUBLE_EQ(*rows[2].best_so_far, 18);  // a time: lower is better, per metric
    EXPECT_EQ(list_files(db).size(), 6u);
    const auto c4 = record(db, cycle_of(dir, 100, 110), "after migrating");
    EXPECT_EQ(c4.cycle, 4);
  }
  HistoryDb again(path);  // a second open finds the current version and changes nothing
  EXPECT_EQ(list_cycles(again).size(), 4u);
}

TEST(HistoryMigration, NewerVersionIsRefusedAndLeftAlone) {
  const auto path = fresh_dir("history-newer") / "h.sqlite";
  {
    SqliteDb db(path, true);
    db.exec(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO meta VALUES ('application', 'phasebench'), ('schema_version', '99');");
  }
  const std::string before = read_text(path);
  const std::string message = refusal(path);
  EXPECT_NE(message.find("schema version 99"), std::string::npos) << message;
  EXPECT_NE(message.find("newer phasebench"), std::string::npos) << message;
  expect_untouched(path, before);
}

TEST(HistoryRefusal, RandomBytesAreNotADatabaseAndStayByteIdentical) {
  const auto path = fresh_dir("history-random") / "h.sqlite";
  std::mt19937 rng(42);
  std::string bytes(8192, '\0');
  for (auto& b : bytes) b = static_cast<char>(rng());
  std::ofstream(path, std::ios::binary) << bytes;
  const std::string message = refusal(path);
  EXPECT_NE(message.find("not a SQLite database"), std::string::npos) << message;
  EXPECT_NE(message.find("left the file exactly as it was"), std::string::npos) << message;
  expect_untouched(path, bytes);
}

TEST(HistoryRefusal, CorruptedHistoryIsRefusedAndLeftAlone) {
  const auto dir = fresh_dir("history-corrupt");
  const auto path = dir / "h.sqlite";
  {
    HistoryDb db(path);
    record(db, cycle_of(dir, 100, 110), "one");
    db.sql().exec("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE");
  }
  std::string bytes = read_text(path);
  ASSERT_GT(bytes.size(), 4096u);
  for (size_t i = 100; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 131);  // keep the header only
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  const std::string message = refusal(path);
  EXPECT_NE(message.find("left the file exactly as it was"), std::string::npos) << message;
  expect_untouched(path, bytes);
}

TEST(HistoryRefusal, ForeignSqliteDatabaseIsRefusedAndLeftAlone) {
  const auto path = fresh_dir("history-foreign") / "other.sqlite";
  {
    SqliteDb db(path, true);
    db.exec(
        "CREATE TABLE meta (key TEXT, value TEXT); INSERT INTO meta VALUES ('application', 'someone-else');"
        "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO photos (name) VALUES ('cat');");
  }
  const std::string before = read_text(path);
  const std::string message = refusal(path);
  EXPECT_NE(message.find("not a phasebench history"), std::string::npos) << message;
  expect_untouched(path, before);

  const auto other = fresh_dir("history-foreign-2") / "other.sqlite";
  {
    SqliteDb db(other, true);
    db.exec("CREATE TABLE photos (id INTEGER PRIMARY KEY)");
  }
  const std::string other_before = read_text(other);
  EXPECT_NE(refusal(other).find("not a phasebench history"), std::string::npos);
  expect_untouched(other, other_before);
}

TEST(HistoryRefusal, ReadingCommandsLeaveNoFileBehind) {
  const auto path = fresh_dir("history-missing") / "none.sqlite";
  EXPECT_FALSE(HistoryDb::open_existing(path));
  EXPECT_FALSE(fs::exists(path));
}

TEST(HistoryConcurrency, WritersAtOnceAllLand) {
  const auto dir = fresh_dir("history-threads");
  const auto path = dir / "h.sqlite";  // created by whichever thread gets there first
  const Cycle c = cycle_of(dir, 100, 110);
  constexpr int kThreads = 4, kCycles = 15;
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        HistoryDb db(path);
        for (int i = 0; i < kCycles; ++i) record(db, c, "thread " + std::to_string(t) + " cycle " + std::to_string(i));
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
  HistoryDb db(path);
  const auto rows = list_cycles(db);
  ASSERT_EQ(rows.size(), size_t{kThreads * kCycles});
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i].cycle, static_cast<int64_t>(i + 1));
  EXPECT_EQ(list_files(db).size(), size_t{2 * kThreads * kCycles});
}

}  // namespace
}  // namespace pb::test
