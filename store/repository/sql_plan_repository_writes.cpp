// SqlPlanRepository's row writes, each inside the caller's write transaction: plans under
// "existing plan wins", triggers in append order, kernels and their links to plans; and the
// kernel lookup, which deletes a binary that fails its checksum.
#include <fmt/format.h>

#include "engine/core/log.h"
#include "store/codec/row_checksum.h"
#include "store/repository/column_encoding.h"
#include "store/repository/plan_columns.h"
#include "store/repository/sql_plan_repository.h"

namespace ember {

namespace {

struct ExistingPlan {
  PlanRowId id = 0;
  std::string status;
  Blob ops_blob;
};

std::vector<SqlValue> KernelKeyValues(EnvironmentRowId environment, const KernelKey& key) {
  return {SqlValue(int64_t{environment}), SqlValue(key.source_hash), SqlValue(key.arch),
          SqlValue(key.compiler_version)};
}

constexpr char kKernelByKey[] =
    "environment_id = ?1 AND source_hash = ?2 AND arch = ?3 AND compiler_version = ?4";

}  // namespace

Status SqlPlanRepository::WritePlanRow(EnvironmentRowId environment, const NewPlan& plan,
                                       int64_t now, InsertResult* result) {
  const Blob key = PlanKeyBytes(plan.plan_key);
  const std::vector<SqlValue> columns = ValuesOf(ColumnsOf(environment, plan, key, now));
  // A row of the same key is locked, not changed (the update's WHERE is false: ON CONFLICT DO
  // UPDATE locks the row it considers whether or not it updates it), and RETURNING gives only a
  // row inserted. On a server, an uncommitted insert of the same key makes this one wait for
  // its commit; a row that a gc holds is waited for too, and once gc deleted it, this one is
  // inserted. With DO NOTHING the row was not locked: a gc could delete it between the insert
  // and the select below, which then found no plan of the key at all, and a loop of gc beside
  // writers could do so at every try (Note [Gc beside live writers], store/admin/plan_gc.cpp).
  // On a SQLite file the write transaction excludes every other writer either way.
  const std::string insert = AnnouncingPlanInsert(
      fmt::format("{} ON CONFLICT (environment_id, plan_key) DO UPDATE SET status = plans.status "
                  "WHERE false RETURNING id, environment_id, first_op_hash, plan_key",
                  kInsertPlanColumns));
  std::optional<PlanRowId> inserted;
  if (Status s = sql().Query(insert, columns, "inserting a plan",
                             [&](const SqlRow& row) { inserted = row.Int64(0); });
      !s.ok()) {
    return s;
  }
  if (inserted.has_value()) {
    *result = {*inserted, InsertOutcome::kInserted};
    return Status::Ok();
  }
  // Already locked by the insert; the lock clause only says so.
  std::optional<ExistingPlan> existing;
  if (Status s = sql().Query(
          fmt::format("SELECT id, status, ops_blob FROM plans WHERE environment_id = ?1 AND "
                      "plan_key = ?2{}",
                      sql().RowLockClause()),
          {SqlValue(int64_t{environment}), SqlValue(key)}, "reading the existing plan",
          [&](const SqlRow& row) {
            existing = {row.Int64(0), row.Text(1), row.Blob(2)};
          });
      !s.ok()) {
    return s;
  }
  if (!existing.has_value()) {
    return Status::Corruption(fmt::format(
        "plan database {}: a plan insert conflicted but no plan has its key", location()));
  }
  if (existing->status == "quarantined") {
    if (Status s = sql().Exec(
            "UPDATE plans SET first_op_hash = ?2, ops_blob = ?4, plan_blob = ?5, checksum = ?6, "
            "ops_bytes = ?7, plan_bytes = ?8, num_ops = ?9, explore_ms = ?10, created = ?11, "
            "origin = ?12, status = 'ok', quarantine_reason = NULL "
            "WHERE environment_id = ?1 AND plan_key = ?3",
            columns, "repairing a quarantined plan");
        !s.ok()) {
      return s;
    }
    if (Status s = DropInvalidTriggers(existing->id, plan); !s.ok()) return s;
    if (Status s = Announce('p', existing->id, environment, plan.first_op_hash, key); !s.ok()) {
      return s;
    }
    *result = {existing->id, InsertOutcome::kReplacedQuarantined};
    return Status::Ok();
  }
  const bool same_ops = existing->ops_blob == plan.ops_blob;
  *result = {existing->id, same_ops ? InsertOutcome::kExisting : InsertOutcome::kKeyCollision};
  return Status::Ok();
}

Status SqlPlanRepository::WriteTriggerRows(PlanRowId plan, std::span<const TriggerRow> triggers,
                                           size_t* added) {
  if (triggers.empty()) return Status::Ok();
  // Said plainly rather than as a failed foreign key: the caller may store the plan again. On
  // a server the plan's row lock orders the hosts that append to it: each reads the last
  // position after the one before it committed.
  bool found = false;
  EnvironmentRowId environment = 0;
  uint64_t first_op_hash = 0;
  Blob key;
  if (Status s = sql().Query(
          fmt::format("SELECT environment_id, first_op_hash, plan_key FROM plans WHERE id = ?1{}",
                      sql().RowLockClause()),
          {SqlValue(int64_t{plan})}, "locking the plan's triggers",
          [&](const SqlRow& row) {
            found = true;
            environment = row.Int64(0);
            first_op_hash = FromColumn(row.Int64(1));
            key = row.Blob(2);
          });
      !s.ok()) {
    return s;
  }
  if (!found) {
    return Status::NotFound(
        fmt::format("plan database {} has no plan {} to add triggers to", location(), plan));
  }
  // Position = one past the plan's last; a duplicate (plan, kind, ops) keeps its first position.
  size_t appended = 0;
  for (const TriggerRow& trigger : triggers) {
    int64_t changed = 0;
    if (Status s = sql().Exec(
            "INSERT INTO triggers (plan_id, position, kind, ops_blob) "
            "SELECT ?1, COALESCE(MAX(position) + 1, 0), ?2, ?3 FROM triggers WHERE plan_id = ?1 "
            "ON CONFLICT (plan_id, kind, ops_blob) DO NOTHING",
            {SqlValue(int64_t{plan}), SqlValue(int64_t{trigger.kind}), SqlValue(trigger.ops_blob)},
            "appending a trigger", &changed);
        !s.ok()) {
      return s;
    }
    appended += static_cast<size_t>(changed);
  }
  *added += appended;
  if (appended == 0) return Status::Ok();
  return Announce('t', plan, environment, first_op_hash, key);
}

Status SqlPlanRepository::WriteKernelRow(EnvironmentRowId environment, const NewKernel& kernel,
                                         std::optional<PlanRowId> plan_id, int64_t now,
                                         KernelRowId* id, bool* added) {
  const int64_t checksum = ToColumn(KernelChecksum(kernel.binary));
  *added = false;
  if (Status s = sql().Query(
          "INSERT INTO kernels (environment_id, plan_id, source_hash, arch, compiler_version, "
          "\"binary\", checksum, created, name, source, options) "
          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) "
          "ON CONFLICT (environment_id, source_hash, arch, compiler_version) DO NOTHING "
          "RETURNING id",
          {SqlValue(int64_t{environment}), plan_id ? SqlValue(*plan_id) : SqlValue(),
           SqlValue(kernel.key.source_hash), SqlValue(kernel.key.arch),
           SqlValue(kernel.key.compiler_version), SqlValue(kernel.binary), SqlValue(checksum),
           SqlValue(now), SqlValue(kernel.text.name), SqlValue(kernel.text.source),
           SqlValue(kernel.text.options)},
          "storing a compiled kernel",
          [&](const SqlRow& row) {
            *id = row.Int64(0);
            *added = true;
          });
      !s.ok()) {
    return s;
  }
  if (!*added) {
    bool found = false;
    if (Status s =
            sql().Query(fmt::format("SELECT id FROM kernels WHERE {}", kKernelByKey),
                        KernelKeyValues(environment, kernel.key), "reading the existing kernel",
                        [&](const SqlRow& row) {
                          *id = row.Int64(0);
                          found = true;
                        });
        !s.ok()) {
      return s;
    }
    if (!found) {
      return Status::Corruption(fmt::format(
          "plan database {}: a kernel insert conflicted but no kernel has its key", location()));
    }
    if (kernel.replace) {
      if (Status s = sql().Exec(
              "UPDATE kernels SET \"binary\" = ?2, checksum = ?3, created = ?4, name = ?5, "
              "source = ?6, options = ?7 WHERE id = ?1",
              {SqlValue(int64_t{*id}), SqlValue(kernel.binary), SqlValue(checksum), SqlValue(now),
               SqlValue(kernel.text.name), SqlValue(kernel.text.source),
               SqlValue(kernel.text.options)},
              "replacing a compiled kernel");
          !s.ok()) {
        return s;
      }
    }
  }
  if (!plan_id.has_value()) return Status::Ok();
  return sql().Exec(
      "INSERT INTO plan_kernels (plan_id, kernel_id) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
      {SqlValue(int64_t{*plan_id}), SqlValue(int64_t{*id})}, "linking a kernel to its plan");
}

Status SqlPlanRepository::WriteKernelLink(EnvironmentRowId environment, const KernelKey& key,
                                          PlanRowId plan, bool* linked) {
  std::vector<SqlValue> args = KernelKeyValues(environment, key);
  args.emplace_back(int64_t{plan});
  int64_t changed = 0;
  if (Status s = sql().Exec(fmt::format("INSERT INTO plan_kernels (plan_id, kernel_id) SELECT ?5, "
                                        "id FROM kernels WHERE {} ON CONFLICT DO NOTHING",
                                        kKernelByKey),
                            args, "linking a stored kernel to a plan", &changed);
      !s.ok()) {
    return s;
  }
  *linked = changed > 0;
  return Status::Ok();
}

Status SqlPlanRepository::LoadWorkloadKernels(EnvironmentRowId environment, WorkloadRowId workload,
                                              size_t max_bytes, std::vector<StoredKernel>* out) {
  out->clear();
  size_t bytes = 0;
  return sql().ReadStatement("loading a workload's kernels", [&] {
    out->clear();
    bytes = 0;
    return sql().Query(
        "SELECT id, plan_id, source_hash, arch, compiler_version, \"binary\", checksum FROM "
        "kernels WHERE environment_id = ?1 AND id IN (SELECT pk.kernel_id FROM plan_kernels pk "
        "JOIN plan_usage pu ON pu.plan_id = pk.plan_id WHERE pu.workload_id = ?2)",
        {SqlValue(int64_t{environment}), SqlValue(int64_t{workload})},
        "loading a workload's kernels", [&](const SqlRow& row) {
          StoredKernel k;
          k.id = row.Int64(0);
          k.plan_id = row.IsNull(1) ? std::nullopt : std::optional<PlanRowId>(row.Int64(1));
          k.key = {
              .source_hash = row.Blob(2), .arch = row.Text(3), .compiler_version = row.Text(4)};
          k.binary = row.Blob(5);
          k.checksum = FromColumn(row.Int64(6));
          if (bytes >= max_bytes || KernelChecksum(k.binary) != k.checksum) return;
          bytes += k.binary.size();
          out->push_back(std::move(k));
        });
  });
}

Status SqlPlanRepository::GetKernel(EnvironmentRowId environment, const KernelKey& key,
                                    StoredKernel* out) {
  bool found = false;
  Status s = sql().ReadStatement("loading a compiled kernel", [&] {
    found = false;
    return sql().Query(
        fmt::format("SELECT id, plan_id, \"binary\", checksum, name, source, options FROM "
                    "kernels WHERE {}",
                    kKernelByKey),
        KernelKeyValues(environment, key), "loading a compiled kernel", [&](const SqlRow& row) {
          found = true;
          out->id = row.Int64(0);
          out->plan_id = row.IsNull(1) ? std::nullopt : std::optional<PlanRowId>(row.Int64(1));
          out->key = key;
          out->binary = row.Blob(2);
          out->checksum = FromColumn(row.Int64(3));
          out->text = {.name = row.Text(4), .source = row.Text(5), .options = row.Text(6)};
        });
  });
  if (!s.ok()) return s;
  if (!found) {
    return Status::NotFound(
        fmt::format("no compiled kernel for arch {}, compiler {}", key.arch, key.compiler_version));
  }
  const uint64_t actual = KernelChecksum(out->binary);
  if (actual == out->checksum) return Status::Ok();

  const KernelRowId bad = out->id;
  const uint64_t stored = out->checksum;
  *out = StoredKernel();
  std::string fate = "left in place (read-only database)";
  if (writable()) {
    Status removed = sql().WriteStatement("deleting a damaged kernel", [&] {
      return sql().Exec("DELETE FROM kernels WHERE id = ?1", {SqlValue(int64_t{bad})},
                        "deleting a damaged kernel");
    });
    fate = removed.ok() ? "deleted" : "could not be deleted: " + removed.ToString();
  }
  const std::string message = fmt::format(
      "compiled kernel {} in {} failed its checksum (stored 0x{:016x}, computed 0x{:016x}); "
      "not used, {}",
      bad, location(), stored, actual, fate);
  LogFusion(LogLevel::kBasic, [&] { return "[store] " + message; });
  return Status::Corruption(message);
}

}  // namespace ember
