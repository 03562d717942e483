// PostgresPlanRepository: the plan repository (store/repository/plan_repository.h, whose rules
// it keeps) on a PostgreSQL server, so that every host of a fleet reads what any host found.
// The schema is migrations/postgres/, the SQLite schema version for version.
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
#include <set>
#include <string>

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
  Status EnsureEnvironmentText(std::string_view stable_id, std::string_view description,
                               EnvironmentRowId* id) override;
  Status ListEnvironments(std::vector<EnvironmentRow>* out) override;
  Status LoadAllPlans(EnvironmentRowId environment, LoadedPlans* out) override;
  Status LoadPlansByFirstOp(EnvironmentRowId environment, uint64_t first_op_hash, LoadedPlans* out,
                            size_t limit = kAllRows) override;
  Status FindPlanByKey(EnvironmentRowId environment, const Hash128& plan_key,
                       std::optional<PlanRowId>* id) override;
  Status InsertPlan(EnvironmentRowId environment, const NewPlan& plan,
                    InsertResult* result) override;
  Status AppendTriggers(PlanRowId plan, std::span<const TriggerRow> triggers,
                        size_t* added = nullptr) override;
  Status Publish(const PublishBatch& batch, PublishResult* result) override;
  Status RecordHitCounts(std::span<const std::pair<PlanRowId, int64_t>> counts,
                         std::optional<WorkloadRowId> workload) override;
  Status Quarantine(PlanRowId plan, std::string_view reason) override;
  Status PutKernel(EnvironmentRowId environment, const NewKernel& kernel, KernelRowId* id,
                   bool* added = nullptr) override;
  Status GetKernel(EnvironmentRowId environment, const KernelKey& key, StoredKernel* out) override;

  Status WritePlanRow(EnvironmentRowId environment, const NewPlan& plan, int64_t now,
                      InsertResult* result) override;
  Status WriteTriggerRows(PlanRowId plan, std::span<const TriggerRow> triggers,
                          size_t* added) override;
  Status WriteKernelRow(EnvironmentRowId environment, const NewKernel& kernel,
                        std::optional<PlanRowId> plan_id, int64_t now, KernelRowId* id,
                        bool* added) override;
  Status WriteKernelLink(EnvironmentRowId environment, const KernelKey& key, PlanRowId plan,
                         bool* linked) override;

 private:
  PostgresPlanRepository(std::unique_ptr<pg::Connection> conn, std::string uri)
      : conn_(std::move(conn)),
        sql_(std::make_unique<PgSqlSession>(*conn_)),
        uri_(std::move(uri)) {}

  Status Migrate(bool read_only);
  // Sets read_only_reason_ when the role lacks a privilege a write needs.
  Status CheckWritePrivileges();
  // The 'ok' plans of `environment` (of one first-op hash, or all) with their triggers: at most
  // `limit` plan rows (kAllRows: every one), each with all its triggers.
  Status LoadPlans(EnvironmentRowId environment, std::optional<uint64_t> first_op_hash,
                   size_t limit, LoadedPlans* out);
  // NOTIFYs a change (pg_change_feed.h) inside the caller's transaction; kind 'p' or 't'.
  Status Notify(char kind, EnvironmentRowId environment, uint64_t first_op_hash,
                const Hash128& plan_key);
  std::unique_ptr<pg::Connection> conn_;
  std::unique_ptr<PgSqlSession> sql_;  // on conn_, replaced with it
  std::string uri_;  // as configured, password included: for Reconnect only, never shown
  std::string read_only_reason_;
  int schema_version_ = 0;
};

}  // namespace ember
