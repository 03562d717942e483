#include "store/admin/plan_inventory.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include "store/admin/recipe_inventory.h"
#include "store/codec/row_checksum.h"
#include "store/repository/column_encoding.h"
#include "store/repository/saturating_sql.h"
#include "store/sqlite/sqlite_sql_session.h"

namespace ember {

namespace {

constexpr std::string_view kPlanColumns =
    "p.id, p.environment_id, COALESCE(e.fingerprint, ''), p.first_op_hash, p.plan_key, "
    "p.checksum, p.ops_bytes, p.plan_bytes, p.num_ops, p.explore_ms, p.created, p.last_hit, "
    "p.hits, p.origin, p.status, COALESCE(p.quarantine_reason, '')";

// Reads the columns of kPlanColumns (0..15), then the blobs when `blobs` (16, 17).
PlanRecord ReadPlanRecord(const SqlRow& row, bool blobs) {
  PlanRecord r;
  r.id = row.Int64(0);
  r.environment_id = row.Int64(1);
  r.environment = row.Text(2);
  r.first_op_hash = row.Int64(3);
  r.plan_key = row.Blob(4);
  r.checksum = row.Int64(5);
  r.ops_bytes = row.Int64(6);
  r.plan_bytes = row.Int64(7);
  r.num_ops = row.Int64(8);
  r.explore_ms = row.Double(9);
  r.created = row.Int64(10);
  if (!row.IsNull(11)) r.last_hit = row.Int64(11);
  r.hits = row.Int64(12);
  r.origin = row.Text(13);
  r.status = row.Text(14);
  r.quarantine_reason = row.Text(15);
  if (blobs) {
    r.ops_blob = row.Blob(16);
    r.plan_blob = row.Blob(17);
  }
  return r;
}

// Attaches the triggers of the plans in `plans` (sorted by id).
Status AttachTriggers(SqlSession& sql, std::vector<PlanRecord>* plans) {
  if (plans->empty()) return Status::Ok();
  std::map<PlanRowId, size_t> index;
  for (size_t i = 0; i < plans->size(); ++i) index[(*plans)[i].id] = i;
  return sql.Query(
      "SELECT plan_id, kind, ops_blob FROM triggers ORDER BY plan_id, position", {},
      "reading triggers", [&](const SqlRow& row) {
        const auto it = index.find(row.Int64(0));
        if (it == index.end()) return;
        (*plans)[it->second].triggers.push_back({static_cast<int>(row.Int64(1)), row.Blob(2)});
      });
}

Status SelectPlans(SqlSession& sql, const PlanFilter& filter, std::optional<PlanRowId> id,
                   std::vector<PlanRecord>* out) {
  out->clear();
  std::string query = fmt::format(
      "SELECT {}{} FROM plans p LEFT JOIN environments e ON "
      "e.id = p.environment_id WHERE 1 = 1",
      kPlanColumns, filter.metadata_only ? "" : ", p.ops_blob, p.plan_blob");
  // Parameters are numbered as they are added: PostgreSQL refuses a gap ($2 without $1).
  std::vector<SqlValue> args;
  auto next = [&args](SqlValue value) {
    args.push_back(std::move(value));
    return args.size();
  };
  if (id.has_value()) query += fmt::format(" AND p.id = ?{}", next(int64_t{*id}));
  if (filter.environment.has_value()) {
    query += fmt::format(" AND p.environment_id = ?{}", next(int64_t{*filter.environment}));
  }
  if (filter.status.has_value()) {
    query += fmt::format(" AND p.status = ?{}", next(*filter.status));
  }
  if (filter.workload.has_value()) {
    query += fmt::format(
        " AND p.id IN (SELECT u.plan_id FROM plan_usage u JOIN workloads w ON "
        "w.id = u.workload_id WHERE w.name = ?{})",
        next(*filter.workload));
  }
  query += " ORDER BY p.id";
  Status s = sql.Query(query, args, "reading plans", [&](const SqlRow& row) {
    out->push_back(ReadPlanRecord(row, !filter.metadata_only));
  });
  if (!s.ok() || filter.metadata_only) return s;
  return AttachTriggers(sql, out);
}

}  // namespace

Status ReadSummary(SqlSession& sql, int schema_version, DatabaseSummary* out) {
  return sql.ReadTransaction("summarizing the database", [&]() -> Status {
    *out = DatabaseSummary();
    out->schema_version = schema_version;
    struct Query {
      std::string sql;
      int64_t* into;
    };
    // SUMs are cast: PostgreSQL sums BIGINTs as NUMERIC (sql_session.h). Counters may sit at
    // the largest integer (saturating_sql.h): their sums stop there instead of failing.
    const auto counter_sum = [&](std::string_view column, std::string_view table) {
      return fmt::format("SELECT {} FROM {}", SaturatingSum(sql.backend(), column), table);
    };
    const Query queries[] = {
        {"SELECT COUNT(*) FROM plans", &out->plans},
        {"SELECT COUNT(*) FROM plans WHERE status = 'quarantined'", &out->quarantined},
        {"SELECT COUNT(*) FROM triggers", &out->triggers},
        {"SELECT COUNT(*) FROM workloads", &out->workloads},
        {"SELECT COUNT(*) FROM environments", &out->environments},
        {"SELECT COUNT(*) FROM kernels", &out->kernels},
        {"SELECT CAST(SUM(ops_bytes + plan_bytes) AS BIGINT) FROM plans", &out->plan_bytes},
        {"SELECT CAST(SUM(length(\"binary\")) AS BIGINT) FROM kernels", &out->kernel_bytes},
        {counter_sum("hits", "plans"), &out->plan_hits},
        {counter_sum("hits", "workloads"), &out->workload_hits},
        {counter_sum("misses", "workloads"), &out->workload_misses},
        {counter_sum("unfused_runs", "workloads"), &out->unfused_runs},
        {counter_sum("explorations", "workloads"), &out->explorations},
    };
    for (const Query& q : queries) {
      if (Status s = QueryInt64(sql, q.sql, {}, "summarizing the database", q.into); !s.ok()) {
        return s;
      }
    }
    if (schema_version >= kDeviceFactsSchema) {
      if (Status s = QueryInt64(sql, "SELECT COUNT(*) FROM device_facts", {},
                                "summarizing the database", &out->device_facts);
          !s.ok()) {
        return s;
      }
    }
    if (schema_version >= kGraphRecipesSchema) {
      if (Status s = QueryInt64(sql, "SELECT COUNT(*) FROM graph_recipes", {},
                                "summarizing the database", &out->graph_recipes);
          !s.ok()) {
        return s;
      }
    }
    if (Status s = sql.StoredBytes(&out->file_bytes); !s.ok()) return s;
    return ReadKernelsByArch(sql, &out->kernels_by_arch);
  });
}

Status ListEnvironments(SqlSession& sql, std::vector<EnvironmentRecord>* out) {
  return sql.ReadTransaction("listing environments", [&] {
    out->clear();
    return sql.Query(
        "SELECT e.id, e.fingerprint, e.description, e.created, "
        "(SELECT COUNT(*) FROM plans p WHERE p.environment_id = e.id) "
        "FROM environments e ORDER BY e.id",
        {}, "listing environments", [&](const SqlRow& row) {
          out->push_back({.id = row.Int64(0),
                          .fingerprint = row.Text(1),
                          .description = row.Text(2),
                          .created = row.Int64(3),
                          .plans = row.Int64(4)});
        });
  });
}

Status ResolveEnvironment(SqlSession& sql, const std::optional<std::string>& selector,
                          std::optional<EnvironmentRowId>* out) {
  out->reset();
  if (!selector.has_value()) return Status::Ok();
  EnvironmentRowId id = 0;
  if (Status s = ResolveEnvironment(sql, std::string_view(*selector), &id); !s.ok()) return s;
  *out = id;
  return Status::Ok();
}

Status ResolveEnvironment(SqlSession& sql, std::string_view selector, EnvironmentRowId* out) {
  std::vector<EnvironmentRecord> all;
  if (Status s = ListEnvironments(sql, &all); !s.ok()) return s;
  const bool numeric =
      !selector.empty() &&
      std::all_of(selector.begin(), selector.end(), [](char c) { return c >= '0' && c <= '9'; });
  std::vector<const EnvironmentRecord*> matches;
  for (const EnvironmentRecord& e : all) {
    if (e.fingerprint == selector || (numeric && std::to_string(e.id) == selector)) {
      *out = e.id;
      return Status::Ok();
    }
    if (e.fingerprint.starts_with(selector)) matches.push_back(&e);
  }
  if (matches.size() == 1 && !selector.empty()) {
    *out = matches[0]->id;
    return Status::Ok();
  }
  if (matches.size() > 1 && !selector.empty()) {
    return Status::InvalidArgument(fmt::format(
        "environment '{}' is ambiguous: {} environments start with it; give more digits", selector,
        matches.size()));
  }
  return Status::NotFound(
      fmt::format("plan database {} has no environment '{}' (give a row id "
                  "or a stable id prefix, e.g. env-1a2b)",
                  sql.location(), selector));
}

Status ListPlans(SqlSession& sql, const PlanFilter& filter, std::vector<PlanRecord>* out) {
  return sql.ReadTransaction("listing plans",
                             [&] { return SelectPlans(sql, filter, std::nullopt, out); });
}

Status ReadPlan(SqlSession& sql, PlanRowId id, PlanRecord* out) {
  std::vector<PlanRecord> found;
  Status s = sql.ReadTransaction("reading a plan",
                                 [&] { return SelectPlans(sql, PlanFilter(), id, &found); });
  if (!s.ok()) return s;
  if (found.empty()) {
    return Status::NotFound(fmt::format("plan database {} has no plan {}", sql.location(), id));
  }
  *out = std::move(found[0]);
  return Status::Ok();
}

Status ListWorkloads(SqlSession& sql, std::optional<EnvironmentRowId> environment,
                     std::vector<WorkloadRecord>* out) {
  std::vector<SqlValue> args;
  if (environment.has_value()) args.emplace_back(int64_t{*environment});
  return sql.ReadTransaction("listing workloads", [&] {
    out->clear();
    return sql.Query(
        fmt::format("SELECT w.id, w.environment_id, w.name, w.explorations, w.max_explorations, "
                    "w.hits, w.misses, w.unfused_runs, w.last_seen, COALESCE(e.fingerprint, ''), "
                    "(SELECT COUNT(*) FROM plan_usage u WHERE u.workload_id = w.id) "
                    "FROM workloads w LEFT JOIN environments e ON e.id = w.environment_id {} "
                    "ORDER BY w.name, w.environment_id",
                    environment.has_value() ? "WHERE w.environment_id = ?1" : ""),
        args, "listing workloads", [&](const SqlRow& row) {
          WorkloadRecord r;
          r.row.id = row.Int64(0);
          r.row.environment_id = row.Int64(1);
          r.row.name = row.Text(2);
          r.row.explorations = row.Int64(3);
          if (!row.IsNull(4)) r.row.max_explorations = row.Int64(4);
          r.row.hits = row.Int64(5);
          r.row.misses = row.Int64(6);
          r.row.unfused_runs = row.Int64(7);
          r.row.last_seen = row.Int64(8);
          r.environment = row.Text(9);
          r.plans_used = row.Int64(10);
          out->push_back(std::move(r));
        });
  });
}

Status ListDeviceFacts(SqlSession& sql, std::optional<EnvironmentRowId> environment,
                       std::vector<DeviceFactRecord>* out) {
  std::vector<SqlValue> args;
  if (environment.has_value()) args.emplace_back(int64_t{*environment});
  // Sorted here too: a server's collation may order names otherwise than a file's bytes.
  const auto by_name = [](const DeviceFactRecord& a, const DeviceFactRecord& b) {
    return a.environment_id != b.environment_id ? a.environment_id < b.environment_id
                                                : a.name < b.name;
  };
  return sql.ReadTransaction("listing device facts", [&]() -> Status {
    out->clear();
    Status s = sql.Query(
        fmt::format("SELECT f.environment_id, COALESCE(e.fingerprint, ''), f.name, f.value, "
                    "f.checksum, f.updated FROM device_facts f LEFT JOIN environments e ON "
                    "e.id = f.environment_id {} ORDER BY f.environment_id, f.name",
                    environment.has_value() ? "WHERE f.environment_id = ?1" : ""),
        args, "listing device facts", [&](const SqlRow& row) {
          DeviceFactRecord r{.environment_id = row.Int64(0),
                             .environment = row.Text(1),
                             .name = row.Text(2),
                             .value = row.Text(3),
                             .updated = row.Int64(5)};
          r.checksum_ok = DeviceFactChecksum(r.name, r.value) == FromColumn(row.Int64(4));
          out->push_back(std::move(r));
        });
    std::sort(out->begin(), out->end(), by_name);
    return s;
  });
}

Status ListEnvironments(SqliteDatabase& db, std::vector<EnvironmentRecord>* out) {
  SqliteSqlSession sql(db);
  return ListEnvironments(sql, out);
}

Status ResolveEnvironment(SqliteDatabase& db, std::string_view selector, EnvironmentRowId* out) {
  SqliteSqlSession sql(db);
  return ResolveEnvironment(sql, selector, out);
}

Status ListPlans(SqliteDatabase& db, const PlanFilter& filter, std::vector<PlanRecord>* out) {
  SqliteSqlSession sql(db);
  return ListPlans(sql, filter, out);
}

Status ReadPlan(SqliteDatabase& db, PlanRowId id, PlanRecord* out) {
  SqliteSqlSession sql(db);
  return ReadPlan(sql, id, out);
}

}  // namespace ember
