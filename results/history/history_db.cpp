#include "results/history/history_db.h"

#include <system_error>

#include "harness/errors.h"
#include "results/history/history_schema.h"

namespace pb::history {
namespace {

namespace fs = std::filesystem;

bool is_new_file(const fs::path& path) {
  std::error_code ec;
  return !fs::exists(path, ec) || fs::file_size(path, ec) == 0;
}

SqliteDb open_file(const fs::path& path) {
  const bool create = !fs::exists(path);
  if (create && path.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);  // opening reports the failure, if any
  }
  try {
    return SqliteDb(path, create);
  } catch (const SqliteError& e) {
    throw UsageError(std::string(e.what()) + "; pass --db with a writable path");
  }
}

[[noreturn]] void refuse(const fs::path& path, const std::string& what) {
  throw UsageError(path.string() + ": " + what +
                   ". phasebench has left the file exactly as it was; pass --db "
                   "with the path of a phasebench history, or a new path to start one");
}

// Everything that reads or writes the file, with SQLite's "not a database" and "corrupt"
// turned into a clear refusal.
void open_checked(SqliteDb& db, const fs::path& path, bool was_new) {
  DbKind kind = classify(db);  // reads only
  if (kind == DbKind::Empty && !was_new) refuse(path, "is an empty SQLite database that phasebench did not create");
  if (kind == DbKind::Foreign)
    refuse(path, "is a SQLite database, but not a phasebench history (no phasebench meta table)");
  if (kind == DbKind::Phasebench && schema_version(db) > kHistorySchemaVersion) {
    refuse(path, "has history schema version " + std::to_string(schema_version(db)) + "; this phasebench knows up to " +
                     std::to_string(kHistorySchemaVersion) + ". Use a newer phasebench");
  }
  if (kind == DbKind::Phasebench && schema_version(db) == kHistorySchemaVersion) return;

  Transaction write(db);
  kind = classify(db);  // again under the write lock: another process may have created it meanwhile
  if (kind == DbKind::Foreign) refuse(path, "is a SQLite database, but not a phasebench history");
  if (kind == DbKind::Empty) create_meta(db);
  const int version = schema_version(db);
  if (version > kHistorySchemaVersion) refuse(path, "was upgraded by a newer phasebench meanwhile");
  if (version < kHistorySchemaVersion) migrate(db, version);
  write.commit();
  // WAL lets readers run beside a writer; it is a property of the file, set once it is ours.
  // Other openers may hold locks meanwhile (HistoryConcurrency.WritersAtOnceAllLand).
  db.exec_when_free("PRAGMA journal_mode = WAL");
}

}  // namespace

HistoryDb::HistoryDb(const fs::path& path) : db_(open_file(path)) {
  const bool was_new = is_new_file(path);
  try {
    open_checked(db_, path, was_new);
    db_.exec("PRAGMA foreign_keys = ON");
  } catch (const SqliteError& e) {
    if (e.code == SQLITE_NOTADB) refuse(path, "is not a SQLite database (or is encrypted)");
    if (e.code == SQLITE_CORRUPT) refuse(path, std::string("is a corrupted SQLite database (") + e.what() + ")");
    throw;
  }
}

std::optional<HistoryDb> HistoryDb::open_existing(const fs::path& path) {
  if (!fs::exists(path)) return std::nullopt;
  return HistoryDb(path);
}

}  // namespace pb::history
