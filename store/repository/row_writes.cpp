#include "store/repository/row_writes.h"

#include <fmt/format.h>

#include "store/codec/row_checksum.h"
#include "store/sqlite/column_encoding.h"
#include "store/sqlite/sqlite_statement.h"

namespace ember {

namespace {

// `plan`'s columns for `environment`, with its checksum and sizes computed; `key` is
// PlanKeyBytes(plan.plan_key).
PlanColumns ColumnsOf(EnvironmentRowId environment, const NewPlan& plan, const Blob& key,
                      int64_t now) {
  return {.environment_id = environment,
          .first_op_hash = ToColumn(plan.first_op_hash),
          .plan_key = key,
          .ops_blob = plan.ops_blob,
          .plan_blob = plan.plan_blob,
          .checksum = ToColumn(PlanChecksum(plan.ops_blob, plan.plan_blob)),
          .ops_bytes = static_cast<int64_t>(plan.ops_blob.size()),
          .plan_bytes = static_cast<int64_t>(plan.plan_blob.size()),
          .num_ops = plan.num_ops,
          .explore_ms = plan.explore_ms,
          .created = now,
          .origin = plan.origin};
}

// Puts `row` into the quarantined row of its environment and key, which becomes 'ok' again.
Status RepairQuarantined(SqliteDatabase& db, const PlanColumns& row) {
  SqliteStatement update;
  if (Status s = db.Prepare(
          "UPDATE plans SET first_op_hash = ?2, ops_blob = ?4, plan_blob = ?5, checksum = ?6, "
          "ops_bytes = ?7, plan_bytes = ?8, num_ops = ?9, explore_ms = ?10, created = ?11, "
          "origin = ?12, status = 'ok', quarantine_reason = NULL "
          "WHERE environment_id = ?1 AND plan_key = ?3",
          "repairing a quarantined plan", &update);
      !s.ok()) {
    return s;
  }
  BindPlanColumns(update, row);
  return update.Run();
}

}  // namespace

void BindPlanColumns(SqliteStatement& stmt, const PlanColumns& row) {
  stmt.BindInt64(1, row.environment_id);
  stmt.BindInt64(2, row.first_op_hash);
  stmt.BindBlob(3, row.plan_key);
  stmt.BindBlob(4, row.ops_blob);
  stmt.BindBlob(5, row.plan_blob);
  stmt.BindInt64(6, row.checksum);
  stmt.BindInt64(7, row.ops_bytes);
  stmt.BindInt64(8, row.plan_bytes);
  stmt.BindInt64(9, row.num_ops);
  stmt.BindDouble(10, row.explore_ms);
  stmt.BindInt64(11, row.created);
  stmt.BindText(12, row.origin);
}

Status InsertPlanRow(SqliteDatabase& db, EnvironmentRowId environment, const NewPlan& plan,
                     int64_t now, InsertResult* result) {
  const Blob key = PlanKeyBytes(plan.plan_key);
  const PlanColumns columns = ColumnsOf(environment, plan, key, now);
  SqliteStatement insert;
  if (Status s = db.Prepare(
          fmt::format("{} ON CONFLICT (environment_id, plan_key) DO NOTHING", kInsertPlanColumns),
          "inserting a plan", &insert);
      !s.ok()) {
    return s;
  }
  BindPlanColumns(insert, columns);
  if (Status s = insert.Run(); !s.ok()) return s;
  if (db.changes() == 1) {
    *result = {db.last_insert_rowid(), InsertOutcome::kInserted};
    return Status::Ok();
  }

  // Another publication of the same key was first.
  SqliteStatement existing;
  if (Status s = db.Prepare(
          "SELECT id, status, ops_blob FROM plans WHERE environment_id = ?1 AND plan_key = ?2",
          "reading the existing plan", &existing);
      !s.ok()) {
    return s;
  }
  existing.BindInt64(1, environment);
  existing.BindBlob(2, key);
  bool row = false;
  if (Status s = existing.Step(&row); !s.ok()) return s;
  if (!row) {
    return Status::Corruption(fmt::format(
        "plan database {}: a plan insert conflicted but no plan has its key", db.path()));
  }
  const PlanRowId id = existing.ColumnInt64(0);
  if (existing.ColumnText(1) == "quarantined") {
    if (Status s = RepairQuarantined(db, columns); !s.ok()) return s;
    *result = {id, InsertOutcome::kReplacedQuarantined};
    return Status::Ok();
  }
  const bool same_ops = existing.ColumnBlob(2) == plan.ops_blob;
  *result = {id, same_ops ? InsertOutcome::kExisting : InsertOutcome::kKeyCollision};
  return Status::Ok();
}

Status AppendTriggerRows(SqliteDatabase& db, PlanRowId plan, std::span<const TriggerRow> triggers,
                         size_t* added) {
  if (triggers.empty()) return Status::Ok();
  // Said plainly rather than as a failed foreign key: the caller may store the plan again.
  SqliteStatement exists;
  if (Status s = db.Prepare("SELECT 1 FROM plans WHERE id = ?1", "finding a plan", &exists);
      !s.ok()) {
    return s;
  }
  exists.BindInt64(1, plan);
  bool found = false;
  if (Status s = exists.Step(&found); !s.ok()) return s;
  if (!found) {
    return Status::NotFound(
        fmt::format("plan database {} has no plan {} to add triggers to", db.path(), plan));
  }
  SqliteStatement insert;
  // Position = one past the plan's last; a duplicate (plan, kind, ops) keeps its first position.
  if (Status s = db.Prepare(
          "INSERT INTO triggers (plan_id, position, kind, ops_blob) "
          "SELECT ?1, COALESCE(MAX(position) + 1, 0), ?2, ?3 FROM triggers WHERE plan_id = ?1 "
          "ON CONFLICT (plan_id, kind, ops_blob) DO NOTHING",
          "appending a trigger", &insert);
      !s.ok()) {
    return s;
  }
  for (const TriggerRow& trigger : triggers) {
    insert.Reset();
    insert.BindInt64(1, plan);
    insert.BindInt64(2, trigger.kind);
    insert.BindBlob(3, trigger.ops_blob);
    if (Status s = insert.Run(); !s.ok()) return s;
    *added += static_cast<size_t>(db.changes());
  }
  return Status::Ok();
}

Status InsertKernelRow(SqliteDatabase& db, EnvironmentRowId environment, const NewKernel& kernel,
                       std::optional<PlanRowId> plan_id, int64_t now, KernelRowId* id,
                       bool* added) {
  // Inside the caller's write transaction nobody else writes, so looking first is race-free.
  SqliteStatement existing;
  if (Status s = db.Prepare(
          "SELECT id FROM kernels WHERE environment_id = ?1 AND source_hash = ?2 AND arch = ?3 "
          "AND compiler_version = ?4",
          "reading the existing kernel", &existing);
      !s.ok()) {
    return s;
  }
  existing.BindInt64(1, environment);
  existing.BindBlob(2, kernel.key.source_hash);
  existing.BindText(3, kernel.key.arch);
  existing.BindText(4, kernel.key.compiler_version);
  bool found = false;
  if (Status s = existing.Step(&found); !s.ok()) return s;
  *added = !found;
  if (found) *id = existing.ColumnInt64(0);

  if (!found || kernel.replace) {
    SqliteStatement write;
    if (Status s = db.Prepare(
            found ? "UPDATE kernels SET binary = ?6, checksum = ?7, created = ?8, name = ?9, "
                    "source = ?10, options = ?11 WHERE id = ?12"
                  : "INSERT INTO kernels (environment_id, plan_id, source_hash, arch, "
                    "compiler_version, binary, checksum, created, name, source, options) "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            "storing a compiled kernel", &write);
        !s.ok()) {
      return s;
    }
    if (found) {
      write.BindInt64(12, *id);
    } else {
      write.BindInt64(1, environment);
      if (plan_id.has_value()) {
        write.BindInt64(2, *plan_id);
      } else {
        write.BindNull(2);
      }
      write.BindBlob(3, kernel.key.source_hash);
      write.BindText(4, kernel.key.arch);
      write.BindText(5, kernel.key.compiler_version);
    }
    write.BindBlob(6, kernel.binary);
    write.BindInt64(7, ToColumn(KernelChecksum(kernel.binary)));
    write.BindInt64(8, now);
    write.BindText(9, kernel.text.name);
    write.BindText(10, kernel.text.source);
    write.BindText(11, kernel.text.options);
    if (Status s = write.Run(); !s.ok()) return s;
    if (!found) *id = db.last_insert_rowid();
  }
  if (!plan_id.has_value()) return Status::Ok();
  SqliteStatement link;
  if (Status s =
          db.Prepare("INSERT OR IGNORE INTO plan_kernels (plan_id, kernel_id) VALUES (?1, ?2)",
                     "linking a kernel to its plan", &link);
      !s.ok()) {
    return s;
  }
  link.BindInt64(1, *plan_id);
  link.BindInt64(2, *id);
  return link.Run();
}

Status LinkKernelRow(SqliteDatabase& db, EnvironmentRowId environment, const KernelKey& key,
                     PlanRowId plan, bool* linked) {
  SqliteStatement link;
  if (Status s = db.Prepare(
          "INSERT OR IGNORE INTO plan_kernels (plan_id, kernel_id) SELECT ?1, id FROM kernels "
          "WHERE environment_id = ?2 AND source_hash = ?3 AND arch = ?4 AND compiler_version = ?5",
          "linking a stored kernel to a plan", &link);
      !s.ok()) {
    return s;
  }
  link.BindInt64(1, plan);
  link.BindInt64(2, environment);
  link.BindBlob(3, key.source_hash);
  link.BindText(4, key.arch);
  link.BindText(5, key.compiler_version);
  if (Status s = link.Run(); !s.ok()) return s;
  *linked = db.changes() > 0;
  return Status::Ok();
}

}  // namespace ember
