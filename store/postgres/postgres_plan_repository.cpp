// PostgresPlanRepository: opening, environments, loading, hits and quarantine. Publication and
// kernels are in postgres_plan_repository_writes.cpp; the workload ledger is SqlPlanRepository's
// (store/repository/sql_plan_repository_workloads.cpp).
#include "store/postgres/postgres_plan_repository.h"
#include "store/postgres/pg_change_feed.h"

#include <fmt/format.h>

#include "engine/core/clock.h"
#include "engine/core/log.h"
#include "engine/core/plan_db_location.h"
#include "store/codec/row_checksum.h"
#include "store/postgres/pg_migrations.h"
#include "store/repository/saturating_sql.h"
#include "store/sqlite/column_encoding.h"

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

namespace {

Status FindEnvironment(pg::Connection& conn, const std::string& stable_id,
                       const std::string& description, bool* found, EnvironmentRowId* id) {
  pg::Result r;
  if (Status s = conn.Exec("SELECT id, description FROM environments WHERE fingerprint = $1",
                           pg::Params().Text(stable_id), "looking up the environment", &r);
      !s.ok()) {
    return s;
  }
  *found = r.rows() == 1;
  if (!*found) return Status::Ok();
  if (r.Text(0, 1) != description) {
    return Status::Corruption(
        fmt::format("plan database {}: environment {} is stored as {} but should be {}",
                    conn.location(), stable_id, r.Text(0, 1), description));
  }
  *id = r.Int64(0, 0);
  return r.CheckTypes();
}

}  // namespace

Status PostgresPlanRepository::ListEnvironments(std::vector<EnvironmentRow>* out) {
  out->clear();
  pg::Result r;
  if (Status s = conn_->Exec("SELECT id, fingerprint, description FROM environments ORDER BY id",
                             "listing environments", &r);
      !s.ok()) {
    return s;
  }
  for (int row = 0; row < r.rows(); ++row) {
    out->push_back({r.Int64(row, 0), r.Text(row, 1), r.Text(row, 2)});
  }
  return r.CheckTypes();
}

Status PostgresPlanRepository::EnsureEnvironmentText(std::string_view stable_id_text,
                                                     std::string_view description_text,
                                                     EnvironmentRowId* id) {
  const std::string stable_id(stable_id_text);
  const std::string description(description_text);
  bool found = false;
  if (Status s = FindEnvironment(*conn_, stable_id, description, &found, id); !s.ok() || found) {
    return s;
  }
  if (!writable()) {
    return Status::NotFound(fmt::format("plan database {} has no plans for environment {} ({})",
                                        location(), stable_id, description));
  }
  return conn_->Transaction("adding an environment", [&]() -> Status {
    if (Status s = conn_->Exec(
            "INSERT INTO environments (fingerprint, description, created) VALUES ($1, $2, $3) "
            "ON CONFLICT (fingerprint) DO NOTHING",
            pg::Params().Text(stable_id).Text(description).Int64(NowUnixMillis()),
            "adding an environment");
        !s.ok()) {
      return s;
    }
    bool now_found = false;
    if (Status s = FindEnvironment(*conn_, stable_id, description, &now_found, id); !s.ok()) {
      return s;
    }
    if (!now_found) {
      return Status::Corruption(fmt::format(
          "plan database {}: environment {} vanished after its insert", location(), stable_id));
    }
    return Status::Ok();
  });
}

Status PostgresPlanRepository::LoadPlans(EnvironmentRowId environment,
                                         std::optional<uint64_t> first_op_hash, size_t limit,
                                         LoadedPlans* out) {
  std::vector<BadPlanRow> bad;
  // One statement for plans and triggers: a consistent snapshot without a transaction, and
  // one round trip per first op.
  Status s = [&]() -> Status {
    *out = LoadedPlans();
    pg::Result r;
    pg::Params params;
    params.Int64(environment);
    if (first_op_hash.has_value()) params.Int64(ToColumn(*first_op_hash));
    // The plans first, limited (LIMIT ALL: every one), then their triggers.
    const std::string sql = fmt::format(
        "SELECT p.id, p.plan_key, p.ops_blob, p.plan_blob, p.checksum, p.num_ops, p.origin, "
        "t.kind, t.ops_blob, p.first_op_hash, p.explore_ms FROM (SELECT * FROM plans "
        "WHERE environment_id = $1 {}AND status = 'ok' ORDER BY id LIMIT {}) p "
        "LEFT JOIN triggers t ON t.plan_id = p.id ORDER BY p.id, t.position",
        first_op_hash.has_value() ? "AND first_op_hash = $2 " : "",
        limit == kAllRows ? std::string("ALL") : std::to_string(limit));
    if (Status q = conn_->Exec(sql, params, "loading plans", &r); !q.ok()) return q;
    PlanRowId current = -1;
    bool current_good = false;
    for (int row = 0; row < r.rows(); ++row) {
      const PlanRowId id = r.Int64(row, 0);
      if (id != current) {
        current = id;
        StoredPlan plan;
        plan.id = id;
        const std::optional<Hash128> key = PlanKeyFromBytes(r.Bytea(row, 1));
        plan.ops_blob = r.Bytea(row, 2);
        plan.plan_blob = r.Bytea(row, 3);
        plan.checksum = FromColumn(r.Int64(row, 4));
        plan.num_ops = static_cast<uint32_t>(r.Int64(row, 5));
        plan.origin = r.Text(row, 6);
        plan.first_op_hash = FromColumn(r.Int64(row, 9));
        plan.explore_ms = r.Double(row, 10);
        const uint64_t actual = PlanChecksum(plan.ops_blob, plan.plan_blob);
        current_good = false;
        if (!key.has_value()) {
          bad.push_back({id, "plan_key is not 16 bytes"});
        } else if (actual != plan.checksum) {
          bad.push_back({id, fmt::format("checksum mismatch (stored 0x{:016x}, computed 0x{:016x})",
                                         plan.checksum, actual)});
        } else {
          plan.plan_key = *key;
          out->plans.push_back(std::move(plan));
          current_good = true;
        }
      }
      if (current_good && !r.IsNull(row, 7)) {
        out->plans.back().triggers.push_back({static_cast<int>(r.Int64(row, 7)), r.Bytea(row, 8)});
      }
    }
    return r.CheckTypes();
  }();
  if (!s.ok()) return s;
  ReportBadRows(bad, out);
  return Status::Ok();
}

Status PostgresPlanRepository::LoadAllPlans(EnvironmentRowId environment, LoadedPlans* out) {
  return LoadPlans(environment, std::nullopt, kAllRows, out);
}

Status PostgresPlanRepository::LoadPlansByFirstOp(EnvironmentRowId environment,
                                                  uint64_t first_op_hash, LoadedPlans* out,
                                                  size_t limit) {
  if (Status s = LoadPlans(environment, first_op_hash, limit, out); !s.ok()) return s;
  LogFusion(LogLevel::kMedium, [&] {
    return fmt::format("[store] loaded {} plan(s) for first-op {} from postgresql",
                       out->plans.size(), FormatHash(first_op_hash));
  });
  return Status::Ok();
}

Status PostgresPlanRepository::FindPlanByKey(EnvironmentRowId environment, const Hash128& plan_key,
                                             std::optional<PlanRowId>* id) {
  id->reset();
  pg::Result r;
  if (Status s = conn_->Exec("SELECT id FROM plans WHERE environment_id = $1 AND plan_key = $2",
                             pg::Params().Int64(environment).Bytea(PlanKeyBytes(plan_key)),
                             "finding a plan", &r);
      !s.ok()) {
    return s;
  }
  if (r.rows() == 1) *id = r.Int64(0, 0);
  return r.CheckTypes();
}

Status PostgresPlanRepository::RecordHitCounts(
    std::span<const std::pair<PlanRowId, int64_t>> counts, std::optional<WorkloadRowId> workload) {
  if (counts.empty()) return Status::Ok();
  if (Status s = CheckWritable("recording hits"); !s.ok()) return s;
  // One statement per table for the whole batch: the ids and counts travel as arrays, so a
  // flush costs two round trips however many plans it covers.
  std::string ids = "{", hits = "{";
  for (size_t i = 0; i < counts.size(); ++i) {
    ids += fmt::format("{}{}", i ? "," : "", counts[i].first);
    hits += fmt::format("{}{}", i ? "," : "", NonNegative(counts[i].second));
  }
  ids += "}";
  hits += "}";
  const int64_t now = NowUnixMillis();
  return conn_->Transaction("recording hits", [&]() -> Status {
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
  });
}

Status PostgresPlanRepository::Quarantine(PlanRowId plan, std::string_view reason) {
  if (Status s = CheckWritable("quarantining a plan"); !s.ok()) return s;
  pg::Result r;
  if (Status s = conn_->Exec(
          "UPDATE plans SET status = 'quarantined', quarantine_reason = $2 WHERE id = $1",
          pg::Params().Int64(plan).Text(reason), "quarantining a plan", &r);
      !s.ok()) {
    return s;
  }
  if (r.affected() != 1) {
    return Status::NotFound(
        fmt::format("plan database {} has no plan {} to quarantine", location(), plan));
  }
  LogFusion(LogLevel::kBasic, [&] {
    return fmt::format("[store] quarantined plan {} in {}: {}", plan, location(), reason);
  });
  return Status::Ok();
}

}  // namespace ember
