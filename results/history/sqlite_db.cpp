#include "results/history/sqlite_db.h"

#include <chrono>
#include <thread>
#include <utility>

namespace pb::history {

SqliteDb::SqliteDb(const std::filesystem::path& path, bool create, int busy_ms) : path_(path), busy_ms_(busy_ms) {
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_FULLMUTEX;
  const int code = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (code != SQLITE_OK) {
    const std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
    sqlite3_close(db_);  // a handle is returned even on failure and must be closed
    db_ = nullptr;
    throw SqliteError(code, path.string() + ": cannot open (" + message + ")");
  }
  sqlite3_extended_result_codes(db_, 0);
  sqlite3_busy_timeout(db_, busy_ms);
}

SqliteDb::~SqliteDb() {
  if (db_) sqlite3_close_v2(db_);
}

SqliteDb::SqliteDb(SqliteDb&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), path_(std::move(other.path_)), busy_ms_(other.busy_ms_) {}

void SqliteDb::check(int code, const std::string& what) const {
  if (code == SQLITE_OK || code == SQLITE_ROW || code == SQLITE_DONE) return;
  throw SqliteError(code & 0xff, path_.string() + ": " + what + ": " + sqlite3_errmsg(db_));
}

void SqliteDb::exec(const std::string& sql) {
  char* message = nullptr;
  const int code = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
  if (code != SQLITE_OK) {
    const std::string text = message ? message : sqlite3_errstr(code);
    sqlite3_free(message);
    throw SqliteError(code & 0xff, path_.string() + ": " + text);
  }
}

void SqliteDb::exec_when_free(const std::string& sql) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_ms_);
  for (;;) {
    try {
      exec(sql);
      return;
    } catch (const SqliteError& e) {
      if (e.code != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline) throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

int64_t SqliteDb::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

Statement::Statement(SqliteDb& db, const std::string& sql) : db_(db), sql_(sql) {
  db_.check(sqlite3_prepare_v2(db.get(), sql.c_str(), -1, &stmt_, nullptr), "preparing " + sql);
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int index, int64_t value) {
  db_.check(sqlite3_bind_int64(stmt_, index, value), "binding");
  return *this;
}

Statement& Statement::bind(int index, double value) {
  db_.check(sqlite3_bind_double(stmt_, index, value), "binding");
  return *this;
}

Statement& Statement::bind(int index, const std::string& value) {
  db_.check(sqlite3_bind_text(stmt_, index, value.c_str(), static_cast<int>(value.size()), SQLITE_TRANSIENT),
            "binding");
  return *this;
}

Statement& Statement::bind(int index, std::optional<double> value) {
  return value ? bind(index, *value) : bind_null(index);
}

Statement& Statement::bind_null(int index) {
  db_.check(sqlite3_bind_null(stmt_, index), "binding");
  return *this;
}

bool Statement::step() {
  const int code = sqlite3_step(stmt_);
  if (code == SQLITE_ROW) return true;
  if (code == SQLITE_DONE) return false;
  db_.check(code, sql_);
  return false;
}

void Statement::run() {
  while (step()) {
  }
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
int64_t Statement::integer(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }

std::optional<double> Statement::optional_real(int column) const {
  return is_null(column) ? std::nullopt : std::optional(real(column));
}

std::string Statement::text(int column) const {
  const auto* p = sqlite3_column_text(stmt_, column);
  return p ? reinterpret_cast<const char*>(p) : "";
}

Transaction::Transaction(SqliteDb& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

Transaction::~Transaction() {
  if (open_) sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_.exec("COMMIT");
  open_ = false;
}

}  // namespace pb::history
