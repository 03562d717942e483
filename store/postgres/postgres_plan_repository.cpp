// PostgresPlanRepository: opening (migrations, privileges), reconnecting, the change feed, and
// the hooks where the server's SQL differs. Everything else is SqlPlanRepository's
// (store/repository/sql_plan_repository*.cpp).
#include "store/postgres/postgres_plan_repository.h"
#include "store/postgres/pg_change_feed.h"

#include <fmt/format.h>

#include "engine/core/log.h"
#include "store/postgres/pg_migrations.h"
#include "store/repository/column_encoding.h"
#include "store/repository/saturating_sql.h"

namespace ember {

Status PostgresPlanRepository::Open(const PlanDbOptions& options,
                                    std::unique_ptr<PostgresPlanRepository>* out) {
  out->reset();
  std::unique_ptr<pg::Connection> conn;
  if (Status s = pg::Connection::Open(options.path, &conn); !s.ok()) return s;
  std::unique_ptr<PostgresPlanRepository> repo(
      new PostgresPlanRepository(std::move(conn), options.path));
  if (Status s = repo->Migrate(options.read_only); !s.ok()) return s;
  *out = std::move(repo);
  return Status::Ok();
}

Status PostgresPlanRepository::Migrate(bool read_only) {
  bool newer = false;
  if (Status s = pg::MigratePostgres(*conn_, read_only, &schema_version_, &newer); !s.ok()) {
    return s;
  }
  const auto known = ember::EmbeddedPostgresMigrations();
  if (read_only) {
    read_only_reason_ = "opened read-only";
  } else if (newer) {
    read_only_reason_ = fmt::format(
        "the server's plan schema is version {}, newer than this binary's {}; it is read, never "
        "written",
        schema_version_, known.empty() ? 0 : known.back().version);
    LogFusion(LogLevel::kBasic,
              [&] { return fmt::format("[store] {}: {}", location(), read_only_reason_); });
  } else {
    return CheckWritePrivileges();
  }
  return Status::Ok();
}

Status PostgresPlanRepository::CheckWritePrivileges() {
  // Every write the engine and the tools make, by table (the statements of this directory). A
  // role that lacks one is read-only from the start: its hosts use the server's plans and say
  // once that they store nothing, instead of failing a write per batch.
  pg::Result r;
  if (Status s = conn_->Exec(
          "SELECT current_user, string_agg(t || ' ' || p, ', ' ORDER BY t, p) FROM (VALUES "
          "('environments', 'INSERT'), ('plans', 'INSERT'), ('plans', 'UPDATE'), "
          "('plans', 'DELETE'), ('triggers', 'INSERT'), ('workloads', 'INSERT'), "
          "('workloads', 'UPDATE'), ('plan_usage', 'INSERT'), ('plan_usage', 'UPDATE'), "
          "('kernels', 'INSERT'), ('kernels', 'UPDATE'), ('kernels', 'DELETE'), "
          "('plan_kernels', 'INSERT')) AS needed(t, p) WHERE NOT has_table_privilege(t, p)",
          "checking the role's privileges", &r);
      !s.ok()) {
    return s;
  }
  if (r.rows() != 1 || r.IsNull(0, 1)) return Status::Ok();
  read_only_reason_ = fmt::format(
      "the role {} may only read ember's tables here (it lacks {}); grant those to store plans",
      r.Text(0, 0), r.Text(0, 1));
  return Status::Ok();
}

Status PostgresPlanRepository::Reconnect() {
  if (conn_->healthy()) return Status::Ok();
  std::unique_ptr<pg::Connection> fresh;
  if (Status s = pg::Connection::Open(uri_, &fresh); !s.ok()) return s;
  conn_ = std::move(fresh);
  sql_ = std::make_unique<PgSqlSession>(*conn_);
  return Status::Ok();
}

Status PostgresPlanRepository::OpenChangeFeed(std::unique_ptr<PlanChangeFeed>* out) {
  std::unique_ptr<PostgresChangeFeed> feed;
  if (Status s = PostgresChangeFeed::Open(uri_, &feed); !s.ok()) return s;
  *out = std::move(feed);
  return Status::Ok();
}

Status PostgresPlanRepository::WriteHitCounts(std::span<const std::pair<PlanRowId, int64_t>> counts,
                                              std::optional<WorkloadRowId> workload, int64_t now) {
  // One statement per table for the whole batch: the ids and counts travel as arrays, so a
  // flush costs two round trips however many plans it covers.
  std::string ids = "{", hits = "{";
  for (size_t i = 0; i < counts.size(); ++i) {
    ids += fmt::format("{}{}", i ? "," : "", counts[i].first);
    hits += fmt::format("{}{}", i ? "," : "", NonNegative(counts[i].second));
  }
  ids += "}";
  hits += "}";
  if (Status s = conn_->Exec(
          "UPDATE plans p SET hits = " + SaturatingAdd("p.hits", "c.n") +
              ", last_hit = GREATEST(p.last_hit, $3) "
              "FROM unnest($1::text::bigint[], $2::text::bigint[]) AS c(id, n) WHERE p.id = c.id",
          pg::Params().Text(ids).Text(hits).Int64(now), "recording hits");
      !s.ok()) {
    return s;
  }
  if (!workload.has_value()) return Status::Ok();
  // Plans that no longer exist are skipped (the join), as the SQLite repository does.
  return conn_->Exec(
      "INSERT INTO plan_usage (workload_id, plan_id, hits, last_hit) "
      "SELECT $4, c.id, c.n, $3 FROM unnest($1::text::bigint[], $2::text::bigint[]) AS c(id, n) "
      "JOIN plans p ON p.id = c.id "
      "ON CONFLICT (workload_id, plan_id) DO UPDATE SET "
      "hits = " +
          SaturatingAdd("plan_usage.hits", "excluded.hits") +
          ", "
          "last_hit = GREATEST(plan_usage.last_hit, excluded.last_hit)",
      pg::Params().Text(ids).Text(hits).Int64(now).Int64(*workload), "recording plan use");
}

std::string PostgresPlanRepository::AnnouncingPlanInsert(std::string insert) const {
  // The row inserted NOTIFYs the other hosts (delivered at commit) in the same round trip.
  return fmt::format(
      "WITH inserted AS ({}) SELECT id FROM inserted, LATERAL pg_notify('{}', {}) AS notified",
      insert, kPlanChannel,
      PlanChangePayloadSql('p', "environment_id", "first_op_hash", "plan_key"));
}

Status PostgresPlanRepository::Announce(char kind, PlanRowId plan, EnvironmentRowId environment,
                                        uint64_t first_op_hash, std::span<const uint8_t> plan_key) {
  if (!PlanKeyFromBytes(plan_key).has_value()) {
    return Status::Corruption(fmt::format("plan {} has a malformed key", plan));
  }
  const std::string notify =
      fmt::format("SELECT pg_notify('{}', {})", kPlanChannel,
                  PlanChangePayloadSql(kind, "$1::bigint", "$2::bigint", "$3::bytea"));
  return conn_->Exec(notify,
                     pg::Params().Int64(environment).Int64(ToColumn(first_op_hash)).Bytea(plan_key),
                     "announcing a change");
}

}  // namespace ember
