// SqliteStatement: one prepared statement (RAII) with typed binds and columns.
//
//   SqliteStatement stmt;
//   if (Status s = db.Prepare("SELECT id FROM plans WHERE plan_key = ?1", "finding a plan",
//                             &stmt); !s.ok()) return s;
//   stmt.BindBlob(1, key);
//   bool row = false;
//   if (Status s = stmt.Step(&row); !s.ok()) return s;
//
// Binds never fail on their own: the first failing bind is remembered and returned by the next
// Step() or Run(), so a row of binds needs one check. Parameters and columns count like SQLite
// (binds from 1, columns from 0). Same threading rule as the connection it came from.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/status.h"

struct sqlite3_stmt;

namespace ember {

class SqliteDatabase;
class SqliteStatementCache;

class SqliteStatement {
 public:
  SqliteStatement() = default;
  ~SqliteStatement();
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  void BindInt64(int index, int64_t value);
  void BindDouble(int index, double value);
  void BindText(int index, std::string_view value);
  void BindBlob(int index, std::span<const uint8_t> value);
  void BindNull(int index);

  // Steps once; *row is true when a row is ready for the Column* calls, false when done.
  Status Step(bool* row);
  // Steps until done (INSERT, UPDATE, DELETE); rows, if any, are ignored.
  Status Run();
  // Makes the statement ready to run again, with its bindings cleared.
  void Reset();

  bool ColumnIsNull(int column) const;
  int64_t ColumnInt64(int column) const;
  double ColumnDouble(int column) const;
  std::string ColumnText(int column) const;
  std::vector<uint8_t> ColumnBlob(int column) const;

 private:
  friend class SqliteDatabase;
  SqliteStatement(SqliteDatabase* db, sqlite3_stmt* stmt, std::string_view what)
      : db_(db), stmt_(stmt), what_(what) {}
  void NoteBind(int rc, int index);

  // Gives the statement back to its connection's cache (or finalizes it without one).
  void Release();

  SqliteDatabase* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  SqliteStatementCache* cache_ = nullptr;
  std::string sql_;  // the cache key
  std::string what_;
  int bind_error_ = 0;  // SQLite code of the first failed bind, 0 when none.
  int bind_error_index_ = 0;
};

}  // namespace ember
