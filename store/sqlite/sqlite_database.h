// SqliteDatabase: one owned SQLite connection (RAII), the thin layer every store query goes
// through. It opens existing files only: creating a plan database (mode 0600, trusted
// directory) is the job of file_trust.h (PrepareDatabaseFile), so SQLite never
// creates one with the umask's permissions.
//
// Each connection is configured the same way: extended result codes, a busy timeout, foreign
// keys on, and SQLite's defensive settings (no untrusted schema functions, no writes to
// sqlite_master), since a plan database is read as data, not trusted as code.
//
// Threading: one thread at a time per connection (opened with SQLITE_OPEN_NOMUTEX); open one
// connection per thread or process. Never use a connection in a child after fork().
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engine/core/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace ember {

class SqliteStatement;

// Compiled statements of one connection waiting to be used again, one per SQL text: the plan
// store runs the same few statements over and over, and compiling them was most of a lookup's
// time. A statement comes back reset, its bindings cleared (so it holds no read transaction).
// Finalizes what it holds when destroyed; the connection closes with sqlite3_close_v2, which
// waits for that.
class SqliteStatementCache {
 public:
  SqliteStatementCache() = default;
  ~SqliteStatementCache();
  SqliteStatementCache(const SqliteStatementCache&) = delete;
  SqliteStatementCache& operator=(const SqliteStatementCache&) = delete;

  // An idle statement for `sql`, or null.
  sqlite3_stmt* Take(const std::string& sql);
  // Keeps `stmt` for `sql` (resetting it), or finalizes it when one is already kept.
  void Return(const std::string& sql, sqlite3_stmt* stmt);

 private:
  std::unordered_map<std::string, sqlite3_stmt*> idle_;
};

class SqliteDatabase {
 public:
  // kImmutable: read-only, and SQLite is told the file cannot change while it is open (no
  // locks, no -wal or -shm: the `immutable` URI parameter, sqlite.org/uri.html). Only for a file
  // nothing can write: one on a read-only filesystem or marked immutable.
  enum class Mode { kReadWrite, kReadOnly, kImmutable };

  SqliteDatabase() = default;  // Closed.
  // REQUIRES for moves: no statement prepared from either connection is alive (statements
  // point at their connection).
  SqliteDatabase(SqliteDatabase&&) = default;
  SqliteDatabase& operator=(SqliteDatabase&&) = default;

  // Opens the existing file at `path`. On failure *out is left closed.
  static Status Open(const std::string& path, Mode mode, std::chrono::milliseconds busy_timeout,
                     SqliteDatabase* out);

  bool is_open() const { return handle_ != nullptr; }
  sqlite3* handle() const { return handle_.get(); }
  const std::string& path() const { return path_; }
  // Opened read-only, or opened for writing but SQLite could only get the file read-only (an
  // immutable file, a read-only mount).
  bool read_only() const;
  Mode mode() const { return mode_; }

  // Runs one or more statements that return no rows (DDL, PRAGMA writes, BEGIN/COMMIT).
  Status Exec(std::string_view sql, std::string_view what);
  // Compiles the first statement of `sql`. `what` names the operation in error messages
  // ("loading plans"). REQUIRES: is_open().
  Status Prepare(std::string_view sql, std::string_view what, SqliteStatement* out);
  // Runs a single-row, single-column query (e.g. "PRAGMA journal_mode") and returns its text.
  Status QueryText(std::string_view sql, std::string_view what, std::string* out);

  // The Status for `rc`, which a call on this connection returned while doing `what`. Records
  // the code for last_error_code().
  Status Error(int rc, std::string_view what);
  // The primary result code of the last error turned into a Status (0 when none since
  // ClearLastError()).
  int last_error_code() const { return last_error_code_; }
  void ClearLastError() { last_error_code_ = 0; }

  int64_t last_insert_rowid() const;
  // Rows changed by the most recent INSERT, UPDATE or DELETE.
  int changes() const;

 private:
  struct Closer {
    void operator()(sqlite3* db) const;
  };

  std::unique_ptr<sqlite3, Closer> handle_;
  // Behind a pointer, so that it stays where statements point when the connection is moved.
  std::unique_ptr<SqliteStatementCache> statements_ = std::make_unique<SqliteStatementCache>();
  std::string path_;
  Mode mode_ = Mode::kReadWrite;
  int last_error_code_ = 0;
};

}  // namespace ember
