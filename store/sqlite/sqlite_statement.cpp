#include "store/sqlite/sqlite_statement.h"

#include <sqlite3.h>

#include <fmt/format.h>

#include <utility>

#include "store/sqlite/sqlite_database.h"

namespace ember {

SqliteStatement::~SqliteStatement() { Release(); }

void SqliteStatement::Release() {
  if (stmt_ == nullptr) return;
  if (cache_ != nullptr) {
    cache_->Return(sql_, stmt_);
  } else {
    sqlite3_finalize(stmt_);
  }
  stmt_ = nullptr;
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_),
      stmt_(std::exchange(other.stmt_, nullptr)),
      cache_(std::exchange(other.cache_, nullptr)),
      sql_(std::move(other.sql_)),
      what_(std::move(other.what_)),
      bind_error_(other.bind_error_),
      bind_error_index_(other.bind_error_index_) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    Release();
    db_ = other.db_;
    stmt_ = std::exchange(other.stmt_, nullptr);
    cache_ = std::exchange(other.cache_, nullptr);
    sql_ = std::move(other.sql_);
    what_ = std::move(other.what_);
    bind_error_ = other.bind_error_;
    bind_error_index_ = other.bind_error_index_;
  }
  return *this;
}

void SqliteStatement::NoteBind(int rc, int index) {
  if (rc != SQLITE_OK && bind_error_ == 0) {
    bind_error_ = rc;
    bind_error_index_ = index;
  }
}

void SqliteStatement::BindInt64(int index, int64_t value) {
  NoteBind(sqlite3_bind_int64(stmt_, index, value), index);
}

void SqliteStatement::BindDouble(int index, double value) {
  NoteBind(sqlite3_bind_double(stmt_, index, value), index);
}

void SqliteStatement::BindText(int index, std::string_view value) {
  NoteBind(
      sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8),
      index);
}

void SqliteStatement::BindBlob(int index, std::span<const uint8_t> value) {
  // A zero-length blob must stay a blob (not NULL): X'' takes part in UNIQUE constraints.
  static const uint8_t kEmpty = 0;
  const void* data = value.empty() ? &kEmpty : value.data();
  NoteBind(sqlite3_bind_blob64(stmt_, index, data, value.size(), SQLITE_TRANSIENT), index);
}

void SqliteStatement::BindNull(int index) { NoteBind(sqlite3_bind_null(stmt_, index), index); }

Status SqliteStatement::Step(bool* row) {
  *row = false;
  if (bind_error_ != 0) {
    return db_->Error(bind_error_,
                      fmt::format("{} (binding parameter {})", what_, bind_error_index_));
  }
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) {
    *row = true;
    return Status::Ok();
  }
  if (rc == SQLITE_DONE) return Status::Ok();
  return db_->Error(rc, what_);
}

Status SqliteStatement::Run() {
  bool row = true;
  while (row) {
    if (Status s = Step(&row); !s.ok()) return s;
  }
  return Status::Ok();
}

void SqliteStatement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_error_ = 0;
  bind_error_index_ = 0;
}

bool SqliteStatement::ColumnIsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t SqliteStatement::ColumnInt64(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

double SqliteStatement::ColumnDouble(int column) const {
  return sqlite3_column_double(stmt_, column);
}

std::string SqliteStatement::ColumnText(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  const int size = sqlite3_column_bytes(stmt_, column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(size));
}

std::vector<uint8_t> SqliteStatement::ColumnBlob(int column) const {
  const auto* data = static_cast<const uint8_t*>(sqlite3_column_blob(stmt_, column));
  const int size = sqlite3_column_bytes(stmt_, column);
  if (data == nullptr) return {};
  return std::vector<uint8_t>(data, data + size);
}

}  // namespace ember
