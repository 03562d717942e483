#include "store/repository/row_writes.h"

#include <fmt/format.h>

#include "store/sqlite/column_encoding.h"
#include "store/codec/row_checksum.h"
#include "store/sqlite/sqlite_statement.h"

namespace ember {

namespace {

// Puts `plan`'s contents into a quarantined row `id`, which becomes 'ok' again.
Status RepairQuarantined(SqliteDatabase& db, PlanRowId id, const NewPlan& plan, int64_t now) {
  SqliteStatement update;
  if (Status s = db.Prepare(
          "UPDATE plans SET first_op_hash = ?2, ops_blob = ?3, plan_blob = ?4, checksum = ?5, "
          "ops_bytes = ?6, plan_bytes = ?7, num_ops = ?8, explore_ms = ?9, created = ?10, "
          "origin = ?11, status = 'ok', quarantine_reason = NULL WHERE id = ?1",
          "repairing a quarantined plan", &update);
      !s.ok()) {
    return s;
  }
  update.BindInt64(1, id);
  update.BindInt64(2, ToColumn(plan.first_op_hash));
  update.BindBlob(3, plan.ops_blob);
  update.BindBlob(4, plan.plan_blob);
  update.BindInt64(5, ToColumn(PlanChecksum(plan.ops_blob, plan.plan_blob)));
  update.BindInt64(6, static_cast<int64_t>(plan.ops_blob.size()));
  update.BindInt64(7, static_cast<int64_t>(plan.plan_blob.size()));
  update.BindInt64(8, plan.num_ops);
  update.BindDouble(9, plan.explore_ms);
  update.BindInt64(10, now);
  update.BindText(11, plan.origin);
  return update.Run();
}

}  // namespace

Status InsertPlanRow(SqliteDatabase& db, EnvironmentRowId environment, const NewPlan& plan,
                     int64_t now, InsertResult* result) {
  const Blob key = PlanKeyBytes(plan.plan_key);
  SqliteStatement insert;
  if (Status s = db.Prepare(
          "INSERT INTO plans (environment_id, first_op_hash, plan_key, ops_blob, plan_blob, "
          "checksum, ops_bytes, plan_bytes, num_ops, explore_ms, created, origin) "
          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) "
          "ON CONFLICT (environment_id, plan_key) DO NOTHING",
          "inserting a plan", &insert);
      !s.ok()) {
    return s;
  }
  insert.BindInt64(1, environment);
  insert.BindInt64(2, ToColumn(plan.first_op_hash));
  insert.BindBlob(3, key);
  insert.BindBlob(4, plan.ops_blob);
  insert.BindBlob(5, plan.plan_blob);
  insert.BindInt64(6, ToColumn(PlanChecksum(plan.ops_blob, plan.plan_blob)));
  insert.BindInt64(7, static_cast<int64_t>(plan.ops_blob.size()));
  insert.BindInt64(8, static_cast<int64_t>(plan.plan_blob.size()));
  insert.BindInt64(9, plan.num_ops);
  insert.BindDouble(10, plan.explore_ms);
  insert.BindInt64(11, now);
  insert.BindText(12, plan.origin);
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
    if (Status s = RepairQuarantined(db, id, plan, now); !s.ok()) return s;
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
  SqliteStatement insert;
  if (Status s = db.Prepare(
          "INSERT INTO kernels (environment_id, plan_id, source_hash, arch, compiler_version, "
          "binary, checksum, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
          "ON CONFLICT (environment_id, source_hash, arch, compiler_version) DO NOTHING",
          "storing a compiled kernel", &insert);
      !s.ok()) {
    return s;
  }
  insert.BindInt64(1, environment);
  if (plan_id.has_value()) {
    insert.BindInt64(2, *plan_id);
  } else {
    insert.BindNull(2);
  }
  insert.BindBlob(3, kernel.key.source_hash);
  insert.BindText(4, kernel.key.arch);
  insert.BindText(5, kernel.key.compiler_version);
  insert.BindBlob(6, kernel.binary);
  insert.BindInt64(7, ToColumn(KernelChecksum(kernel.binary)));
  insert.BindInt64(8, now);
  if (Status s = insert.Run(); !s.ok()) return s;
  *added = db.changes() == 1;
  if (*added) {
    *id = db.last_insert_rowid();
    return Status::Ok();
  }
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
  bool row = false;
  if (Status s = existing.Step(&row); !s.ok()) return s;
  if (!row) {
    return Status::Corruption(fmt::format(
        "plan database {}: a kernel insert conflicted but no kernel has its key", db.path()));
  }
  *id = existing.ColumnInt64(0);
  return Status::Ok();
}

}  // namespace ember
