// PgSqlSession: SqlSession (store/repository/sql_session.h) on a PostgreSQL connection: the
// shared dialect's ?N parameters are sent as $N, values and results travel in binary
// (pg_connection.h), reads run in one REPEATABLE READ, READ ONLY transaction (one snapshot),
// and writes in Connection::Transaction (run again on a serialization failure or deadlock).
//
// Threading: as the Connection — one thread at a time.
#pragma once

#include <string>
#include <string_view>

#include "store/postgres/pg_connection.h"
#include "store/repository/sql_session.h"

namespace ember {

// `sql` with every ?N outside quoted literals and identifiers written $N.
std::string PostgresPlaceholders(std::string_view sql);

class PgSqlSession final : public SqlSession {
 public:
  // `conn` must outlive the session.
  explicit PgSqlSession(pg::Connection& conn) : conn_(conn) {}

  using SqlSession::Exec;
  using SqlSession::Query;

  std::string_view backend() const override { return "postgresql"; }
  const std::string& location() const override { return conn_.location(); }
  Status Query(std::string_view sql, std::span<const SqlValue> args, std::string_view what,
               const std::function<void(const SqlRow&)>& row) override;
  Status Exec(std::string_view sql, std::span<const SqlValue> args, std::string_view what,
              int64_t* changes = nullptr) override;
  Status ReadTransaction(std::string_view what, const std::function<Status()>& body) override;
  Status WriteTransaction(std::string_view what, const std::function<Status()>& body) override;
  std::string_view RowLockClause() const override { return " FOR UPDATE"; }
  std::string_view SkipLockedClause() const override { return " FOR UPDATE SKIP LOCKED"; }
  // pg_total_relation_size of the plan store's tables in the current schema.
  Status StoredBytes(int64_t* out) override;

 private:
  pg::Connection& conn_;
};

}  // namespace ember
