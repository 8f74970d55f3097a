// The history database's schema and its migrations.
//
// Versions (meta.schema_version):
//   0  only the meta table: {application: "phasebench", schema_version}; every new database
//      starts here and is migrated up in the same transaction.
//   1  result_files (path, when recorded, device, git commit) and cycles (change, metric,
//      base/candidate file, values, delta and interval, verdict, kept).
//   2  cycles gain the best value so far and the cycle holding it, the count of runs gated and
//      the full gate report (phasebench.gate/1 JSON); cycle_runs holds one row per matched run.
//      Migrating from 1 replays the cycles in order to fill in the best value so far.
// A migration only ever adds; it runs inside the caller's write transaction, so a failure
// leaves the database at its old version.
#pragma once

#include "results/history/sqlite_db.h"

namespace pb::history {

inline constexpr int kHistorySchemaVersion = 2;
inline constexpr const char* kHistoryApplication = "phasebench";

// What a database file holds, judged without writing to it.
enum class DbKind {
  Empty,       // no tables at all
  Phasebench,  // a meta table with application = phasebench
  Foreign,     // tables, but not phasebench's
};

// Throws SqliteError (SQLITE_NOTADB, SQLITE_CORRUPT, ...) when the file cannot be read as SQLite.
DbKind classify(SqliteDb& db);

// meta.schema_version of a Phasebench database.
int schema_version(SqliteDb& db);

// Creates the version-0 meta table in an empty database (inside the caller's transaction).
void create_meta(SqliteDb& db);

// Migrates from `from` to kHistorySchemaVersion (inside the caller's transaction).
void migrate(SqliteDb& db, int from);

}  // namespace pb::history
