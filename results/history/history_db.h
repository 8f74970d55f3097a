// The optimization-cycle history database (SQLite): opened, checked and migrated.
//
// Safety: a file that is not SQLite, a corrupted one, or a SQLite database without phasebench's
// meta table is an error (UsageError, exit 2) and is never modified: it is only read until it
// proves to be ours. A missing or empty (0-byte) file becomes a new history. Several processes
// may write at once: the database is in WAL mode, waits on a busy timeout, and every write is
// one BEGIN IMMEDIATE transaction.
#pragma once

#include <filesystem>
#include <optional>

#include "results/history/sqlite_db.h"

namespace pb::history {

inline constexpr const char* kDefaultHistoryPath = "results/history.sqlite";

class HistoryDb {
 public:
  // Opens `path`, creating a new history when it is missing or empty and migrating an older
  // schema version to the current one. Throws UsageError for a file that is not a phasebench
  // history, or one written by a newer phasebench.
  explicit HistoryDb(const std::filesystem::path& path);

  // nullopt when `path` does not exist, so that reading commands leave no file behind.
  static std::optional<HistoryDb> open_existing(const std::filesystem::path& path);

  SqliteDb& sql() { return db_; }

 private:
  SqliteDb db_;
};

}  // namespace pb::history
