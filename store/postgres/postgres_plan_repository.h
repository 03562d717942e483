// PostgresPlanRepository: the plan repository (store/repository/plan_repository.h, whose rules
// it keeps) on a PostgreSQL server, so that every host of a fleet reads what any host found.
// The schema is migrations/postgres/, the SQLite schema version for version. Its SQL is
// SqlPlanRepository's (store/repository/sql_plan_repository.h); what is the server's own is
// here: the connection and its reconnection, migrations and privileges, transient errors, the
// change feed, and the hooks where its SQL differs (hits as arrays, NOTIFY).
//
// How the rules hold across hosts, where SQLite had one writer at a time:
//   * "existing plan wins": INSERT … ON CONFLICT DO NOTHING waits for a concurrent insert of
//     the same key to commit, then finds its row;
//   * trigger positions: appending locks the plan's row (SELECT … FOR UPDATE), so two hosts
//     never compute the same next position;
//   * the exploration budget: one conditional UPDATE (explorations < max_explorations), which
//     PostgreSQL re-checks on the newest row version after any concurrent update, so the cap
//     holds with any number of hosts;
//   * a Publish batch is one transaction; serialization failures and deadlocks run it again;
//   * every plan stored and every trigger appended NOTIFYs the other hosts in that same
//     transaction (pg_change_feed.h), so they hear of it exactly when it commits.
// Migrations run under a transaction-level advisory lock, so hosts that start together upgrade
// once; a server whose recorded schema is newer than this binary's is read, never written.
//
// Threading: one thread at a time (one connection).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "store/postgres/pg_connection.h"
#include "store/postgres/pg_sql_session.h"
#include "store/repository/sql_plan_repository.h"

namespace ember {

class PostgresPlanRepository final : public SqlPlanRepository {
 public:
  // Connects to the server of `options.path` (a postgresql:// URI) and creates or migrates
  // ember's tables (unless options.read_only).
  static Status Open(const PlanDbOptions& options, std::unique_ptr<PostgresPlanRepository>* out);

  // The connection, for tests and tools.
  pg::Connection& connection() { return *conn_; }
  int schema_version() const override { return schema_version_; }
  SqlSession& sql() override { return *sql_; }

  std::string_view backend() const override { return "postgresql"; }
  const std::string& location() const override { return conn_->location(); }
  bool writable() const override { return read_only_reason_.empty(); }
  std::string read_only_reason() const override { return read_only_reason_; }
  Status CheckBeforeWriting() override { return Status::Ok(); }
  Status Checkpoint() override { return Status::Ok(); }
  // A lost connection: Unavailable from a connection libpq has seen die.
  bool SyncWaitsForWrites() const override { return false; }
  bool IsTransient(const Status& status) const override {
    return status.code() == Status::Code::kUnavailable && !conn_->healthy();
  }
  // A new connection to the same URI (the schema is already there: no migration).
  Status Reconnect() override;
  // LISTEN/NOTIFY (pg_change_feed.h): every publication NOTIFYs at commit.
  Status OpenChangeFeed(std::unique_ptr<PlanChangeFeed>* out) override;

 protected:
  // Two statements for the whole batch: ids and counts travel as arrays.
  Status WriteHitCounts(std::span<const std::pair<PlanRowId, int64_t>> counts,
                        std::optional<WorkloadRowId> workload, int64_t now) override;
  // The insert and a NOTIFY of the row it inserted, in one round trip.
  std::string AnnouncingPlanInsert(std::string insert) const override;
  // NOTIFY ember_plans (pg_change_feed.h), delivered when the transaction commits.
  Status Announce(char kind, PlanRowId plan, EnvironmentRowId environment, uint64_t first_op_hash,
                  std::span<const uint8_t> plan_key) override;

 private:
  PostgresPlanRepository(std::unique_ptr<pg::Connection> conn, std::string uri)
      : conn_(std::move(conn)),
        sql_(std::make_unique<PgSqlSession>(*conn_)),
        uri_(std::move(uri)) {}

  Status Migrate(bool read_only);
  // Sets read_only_reason_ when the role lacks a privilege a write needs.
  Status CheckWritePrivileges();
  std::unique_ptr<pg::Connection> conn_;
  std::unique_ptr<PgSqlSession> sql_;  // on conn_, replaced with it
  std::string uri_;  // as configured, password included: for Reconnect only, never shown
  std::string read_only_reason_;
  int schema_version_ = 0;
};

}  // namespace ember
