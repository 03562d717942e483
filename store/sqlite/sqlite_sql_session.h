// SqliteSqlSession: SqlSession (sql_session.h) on an open SQLite connection — a plan database
// or a plan bundle. Transactions are RunTransaction's (sqlite_transaction.h): retried while
// the file is busy.
//
// Threading: as the SqliteDatabase — one thread at a time.
#pragma once

#include <string>

#include "store/repository/sql_session.h"
#include "store/sqlite/sqlite_database.h"

namespace ember {

class SqliteSqlSession final : public SqlSession {
 public:
  // `db` must outlive the session.
  explicit SqliteSqlSession(SqliteDatabase& db) : db_(db) {}

  using SqlSession::Exec;
  using SqlSession::Query;

  std::string_view backend() const override { return "sqlite"; }
  const std::string& location() const override { return db_.path(); }
  Status Query(std::string_view sql, std::span<const SqlValue> args, std::string_view what,
               const std::function<void(const SqlRow&)>& row) override;
  Status Exec(std::string_view sql, std::span<const SqlValue> args, std::string_view what,
              int64_t* changes = nullptr) override;
  Status ReadTransaction(std::string_view what, const std::function<Status()>& body) override;
  Status WriteTransaction(std::string_view what, const std::function<Status()>& body) override;
  // RunWithBusyRetry.
  Status ReadStatement(std::string_view what, const std::function<Status()>& body) override;
  // A write transaction (WriteTransaction).
  Status WriteStatement(std::string_view what, const std::function<Status()>& body) override;
  // page_count × page_size.
  Status StoredBytes(int64_t* out) override;

 private:
  SqliteDatabase& db_;
};

}  // namespace ember
