// A thin RAII layer over the SQLite C API: a connection, a prepared statement and an immediate
// write transaction, each releasing its handle in its destructor. Every failing call throws
// SqliteError with SQLite's code and message, so callers can tell "not a database" from "busy".
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace pb::history {

struct SqliteError : std::runtime_error {
  SqliteError(int code, const std::string& what) : std::runtime_error(what), code(code) {}
  int code;  // the primary result code: SQLITE_NOTADB, SQLITE_CORRUPT, SQLITE_BUSY, ...
};

class SqliteDb {
 public:
  // Opens `path` read-write; `create` also creates a missing file. Waits up to `busy_ms` for
  // another connection's lock before a statement gives up with SQLITE_BUSY.
  SqliteDb(const std::filesystem::path& path, bool create, int busy_ms = 10000);
  ~SqliteDb();
  SqliteDb(SqliteDb&& other) noexcept;
  SqliteDb& operator=(SqliteDb&&) = delete;
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  sqlite3* get() const { return db_; }
  const std::filesystem::path& path() const { return path_; }
  // Runs one or more statements that return no rows.
  void exec(const std::string& sql);
  // exec, retried while it fails with SQLITE_BUSY for up to the busy timeout: for statements
  // SQLite's busy handler does not wait on, such as switching the journal mode, which needs
  // the file to itself and gives up at once while another connection holds a lock.
  void exec_when_free(const std::string& sql);
  int64_t last_insert_rowid() const;
  // Throws SqliteError for `code` when it is not SQLITE_OK, naming `what`.
  void check(int code, const std::string& what) const;

 private:
  sqlite3* db_ = nullptr;
  std::filesystem::path path_;
  int busy_ms_ = 0;
};

class Statement {
 public:
  Statement(SqliteDb& db, const std::string& sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters are 1-based, as in SQLite.
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, const std::string& value);
  Statement& bind(int index, std::optional<double> value);  // NULL when empty
  Statement& bind_null(int index);
  // True while there is a row to read; false when done.
  bool step();
  // Runs a statement that returns no rows.
  void run();
  // Makes the statement ready to run again, with its parameters cleared.
  void reset();

  bool is_null(int column) const;
  int64_t integer(int column) const;
  double real(int column) const;
  std::optional<double> optional_real(int column) const;
  std::string text(int column) const;

 private:
  SqliteDb& db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

// BEGIN IMMEDIATE: takes the write lock up front, so two writers queue on the busy timeout
// instead of one failing when it upgrades a read lock. Rolls back unless committed.
class Transaction {
 public:
  explicit Transaction(SqliteDb& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  SqliteDb& db_;
  bool open_ = true;
};

}  // namespace pb::history
