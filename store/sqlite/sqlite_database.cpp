#include "store/sqlite/sqlite_database.h"

#include <sqlite3.h>

#include <fmt/format.h>

#include "store/sqlite/sqlite_error.h"
#include "store/sqlite/sqlite_statement.h"

namespace ember {

void SqliteDatabase::Closer::operator()(sqlite3* db) const {
  // sqlite3_close_v2 defers the close until every statement is finalized; ours are RAII.
  sqlite3_close_v2(db);
}

namespace {

// `path` as a file: URI with immutable=1 (sqlite.org/uri.html: '?', '#' and '%' escaped).
std::string ImmutableUri(const std::string& path) {
  std::string uri = "file:";
  for (const char c : path) {
    if (c == '?' || c == '#' || c == '%') {
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

}  // namespace

bool SqliteDatabase::read_only() const {
  return mode_ != Mode::kReadWrite || (handle_ != nullptr && sqlite3_db_readonly(handle_.get(), "main") == 1);
}

Status SqliteDatabase::Open(const std::string& path, Mode mode,
                            std::chrono::milliseconds busy_timeout, SqliteDatabase* out) {
  *out = SqliteDatabase();
  int flags = (mode == Mode::kReadWrite ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) |
              SQLITE_OPEN_NOMUTEX;
  std::string name = path;
  if (mode == Mode::kImmutable) {
    flags |= SQLITE_OPEN_URI;
    name = ImmutableUri(path);
  }
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(name.c_str(), &raw, flags, nullptr);
  SqliteDatabase db;
  db.handle_.reset(raw);  // SQLite returns a handle even on most failures; it must be closed.
  db.path_ = path;
  db.mode_ = mode;
  if (rc != SQLITE_OK) return db.Error(rc, "opening the database");
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, static_cast<int>(busy_timeout.count()));
  // A plan database is data: no functions from its schema, no direct writes to sqlite_master.
  sqlite3_db_config(raw, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(raw, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  if (Status s = db.Exec("PRAGMA foreign_keys = ON", "enabling foreign keys"); !s.ok()) return s;
  *out = std::move(db);
  return Status::Ok();
}

Status SqliteDatabase::Error(int rc, std::string_view what) {
  last_error_code_ = rc & 0xff;
  return SqliteError(handle_.get(), rc, path_, what);
}

Status SqliteDatabase::Exec(std::string_view sql, std::string_view what) {
  const std::string text(sql);
  const int rc = sqlite3_exec(handle_.get(), text.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return Error(rc, what);
  return Status::Ok();
}

SqliteStatementCache::~SqliteStatementCache() {
  for (auto& [sql, stmt] : idle_) sqlite3_finalize(stmt);
}

sqlite3_stmt* SqliteStatementCache::Take(const std::string& sql) {
  auto it = idle_.find(sql);
  if (it == idle_.end()) return nullptr;
  sqlite3_stmt* stmt = it->second;
  idle_.erase(it);
  return stmt;
}

void SqliteStatementCache::Return(const std::string& sql, sqlite3_stmt* stmt) {
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
  if (!idle_.emplace(sql, stmt).second) sqlite3_finalize(stmt);
}

Status SqliteDatabase::Prepare(std::string_view sql, std::string_view what, SqliteStatement* out) {
  std::string text(sql);
  sqlite3_stmt* stmt = statements_->Take(text);
  if (stmt == nullptr) {
    const int rc = sqlite3_prepare_v3(handle_.get(), text.data(), static_cast<int>(text.size()),
                                      SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) {
      sqlite3_finalize(stmt);
      return Error(rc, what);
    }
  }
  *out = SqliteStatement(this, stmt, what);
  out->cache_ = statements_.get();
  out->sql_ = std::move(text);
  return Status::Ok();
}

Status SqliteDatabase::QueryText(std::string_view sql, std::string_view what, std::string* out) {
  SqliteStatement stmt;
  if (Status s = Prepare(sql, what, &stmt); !s.ok()) return s;
  bool row = false;
  if (Status s = stmt.Step(&row); !s.ok()) return s;
  if (!row)
    return Status::NotFound(fmt::format("plan database {}: {} returned no row", path_, what));
  *out = stmt.ColumnText(0);
  return Status::Ok();
}

int64_t SqliteDatabase::last_insert_rowid() const {
  return sqlite3_last_insert_rowid(handle_.get());
}

int SqliteDatabase::changes() const { return sqlite3_changes(handle_.get()); }

}  // namespace ember
