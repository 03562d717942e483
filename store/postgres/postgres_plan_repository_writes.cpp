// PostgresPlanRepository's publication: plans under "existing plan wins", triggers in append
// order, kernels and their links to plans; a batch in one transaction.
#include <fmt/format.h>

#include "engine/core/clock.h"
#include "engine/core/log.h"
#include "store/codec/row_checksum.h"
#include "store/postgres/pg_change_feed.h"
#include "store/postgres/postgres_plan_repository.h"
#include "store/sqlite/column_encoding.h"

namespace ember {

Status PostgresPlanRepository::WritePlanRow(EnvironmentRowId environment, const NewPlan& plan,
                                            int64_t now, InsertResult* result) {
  const Blob key = PlanKeyBytes(plan.plan_key);
  auto columns = [&] {
    pg::Params p;
    p.Int64(environment)
        .Int64(ToColumn(plan.first_op_hash))
        .Bytea(key)
        .Bytea(plan.ops_blob)
        .Bytea(plan.plan_blob)
        .Int64(ToColumn(PlanChecksum(plan.ops_blob, plan.plan_blob)))
        .Int64(static_cast<int64_t>(plan.ops_blob.size()))
        .Int64(static_cast<int64_t>(plan.plan_blob.size()))
        .Int64(plan.num_ops)
        .Double(plan.explore_ms)
        .Int64(now)
        .Text(plan.origin);
    return p;
  };
  pg::Result inserted;
  // A concurrent insert of the same key makes this one wait for its commit, then do nothing.
  // The row inserted NOTIFYs the other hosts (delivered at commit) in the same round trip.
  const std::string insert = fmt::format(
      "WITH inserted AS ("
      "INSERT INTO plans (environment_id, first_op_hash, plan_key, ops_blob, plan_blob, "
      "checksum, ops_bytes, plan_bytes, num_ops, explore_ms, created, origin) "
      "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) "
      "ON CONFLICT (environment_id, plan_key) DO NOTHING "
      "RETURNING id, environment_id, first_op_hash, plan_key) "
      "SELECT id FROM inserted, LATERAL pg_notify('{}', {}) AS notified",
      kPlanChannel, PlanChangePayloadSql('p', "environment_id", "first_op_hash", "plan_key"));
  // The row that conflicted may be gone by the time it is read (a gc committed in between):
  // then the insert is tried again, a few times.
  pg::Result existing;
  for (int attempt = 0; attempt < 4; ++attempt) {
    if (Status s = conn_->Exec(insert, columns(), "inserting a plan", &inserted); !s.ok()) {
      return s;
    }
    if (inserted.rows() == 1) {
      *result = {inserted.Int64(0, 0), InsertOutcome::kInserted};
      return inserted.CheckTypes();
    }
    if (Status s = conn_->Exec(
            "SELECT id, status, ops_blob FROM plans WHERE environment_id = $1 AND plan_key = $2 "
            "FOR UPDATE",
            pg::Params().Int64(environment).Bytea(key), "reading the existing plan", &existing);
        !s.ok()) {
      return s;
    }
    if (existing.rows() == 1) break;
  }
  if (existing.rows() != 1) {
    return Status::Corruption(fmt::format(
        "plan database {}: a plan insert conflicted but no plan has its key", location()));
  }
  const PlanRowId id = existing.Int64(0, 0);
  if (existing.Text(0, 1) == "quarantined") {
    if (Status s = conn_->Exec(
            "UPDATE plans SET first_op_hash = $2, ops_blob = $4, plan_blob = $5, checksum = $6, "
            "ops_bytes = $7, plan_bytes = $8, num_ops = $9, explore_ms = $10, created = $11, "
            "origin = $12, status = 'ok', quarantine_reason = NULL "
            "WHERE environment_id = $1 AND plan_key = $3",
            columns(), "repairing a quarantined plan");
        !s.ok()) {
      return s;
    }
    if (Status s = DropInvalidTriggers(id, plan); !s.ok()) return s;
    if (Status s = Notify('p', environment, plan.first_op_hash, plan.plan_key); !s.ok()) return s;
    *result = {id, InsertOutcome::kReplacedQuarantined};
    return Status::Ok();
  }
  const bool same_ops = existing.Bytea(0, 2) == plan.ops_blob;
  *result = {id, same_ops ? InsertOutcome::kExisting : InsertOutcome::kKeyCollision};
  return existing.CheckTypes();
}

Status PostgresPlanRepository::WriteTriggerRows(PlanRowId plan,
                                                std::span<const TriggerRow> triggers,
                                                size_t* added) {
  if (triggers.empty()) return Status::Ok();
  // The plan's row lock orders the hosts that append to it: each reads the last position after
  // the one before it committed.
  pg::Result locked;
  if (Status s =
          conn_->Exec("SELECT id, environment_id, first_op_hash, plan_key FROM plans WHERE id = $1 "
                      "FOR UPDATE",
                      pg::Params().Int64(plan), "locking the plan's triggers", &locked);
      !s.ok()) {
    return s;
  }
  if (locked.rows() != 1) {
    return Status::NotFound(
        fmt::format("plan database {} has no plan {} to add triggers to", location(), plan));
  }
  size_t appended = 0;
  for (const TriggerRow& trigger : triggers) {
    pg::Result r;
    if (Status s = conn_->Exec(
            "INSERT INTO triggers (plan_id, position, kind, ops_blob) "
            "SELECT $1, COALESCE(MAX(position) + 1, 0), $2, $3 FROM triggers WHERE plan_id = $1 "
            "ON CONFLICT (plan_id, kind, ops_blob) DO NOTHING",
            pg::Params().Int64(plan).Int64(trigger.kind).Bytea(trigger.ops_blob),
            "appending a trigger", &r);
        !s.ok()) {
      return s;
    }
    appended += static_cast<size_t>(r.affected());
  }
  *added += appended;
  if (appended == 0) return Status::Ok();
  const std::optional<Hash128> key = PlanKeyFromBytes(locked.Bytea(0, 3));
  if (!key) return Status::Corruption(fmt::format("plan {} has a malformed key", plan));
  return Notify('t', locked.Int64(0, 1), FromColumn(locked.Int64(0, 2)), *key);
}

Status PostgresPlanRepository::Notify(char kind, EnvironmentRowId environment,
                                      uint64_t first_op_hash, const Hash128& plan_key) {
  const std::string notify =
      fmt::format("SELECT pg_notify('{}', {})", kPlanChannel,
                  PlanChangePayloadSql(kind, "$1::bigint", "$2::bigint", "$3::bytea"));
  return conn_->Exec(
      notify,
      pg::Params().Int64(environment).Int64(ToColumn(first_op_hash)).Bytea(PlanKeyBytes(plan_key)),
      "announcing a change");
}

Status PostgresPlanRepository::WriteKernelRow(EnvironmentRowId environment, const NewKernel& kernel,
                                              std::optional<PlanRowId> plan_id, int64_t now,
                                              KernelRowId* id, bool* added) {
  const int64_t checksum = ToColumn(KernelChecksum(kernel.binary));
  pg::Params values;
  values.Int64(environment);
  if (plan_id.has_value()) {
    values.Int64(*plan_id);
  } else {
    values.NullInt64();
  }
  values.Bytea(kernel.key.source_hash)
      .Text(kernel.key.arch)
      .Text(kernel.key.compiler_version)
      .Bytea(kernel.binary)
      .Int64(checksum)
      .Int64(now)
      .Text(kernel.text.name)
      .Text(kernel.text.source)
      .Text(kernel.text.options);
  pg::Result inserted;
  if (Status s = conn_->Exec(
          "INSERT INTO kernels (environment_id, plan_id, source_hash, arch, compiler_version, "
          "\"binary\", checksum, created, name, source, options) "
          "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) "
          "ON CONFLICT (environment_id, source_hash, arch, compiler_version) DO NOTHING "
          "RETURNING id",
          values, "storing a compiled kernel", &inserted);
      !s.ok()) {
    return s;
  }
  *added = inserted.rows() == 1;
  if (*added) {
    *id = inserted.Int64(0, 0);
  } else {
    pg::Result existing;
    if (Status s = conn_->Exec(
            "SELECT id FROM kernels WHERE environment_id = $1 AND source_hash = $2 AND arch = $3 "
            "AND compiler_version = $4",
            pg::Params()
                .Int64(environment)
                .Bytea(kernel.key.source_hash)
                .Text(kernel.key.arch)
                .Text(kernel.key.compiler_version),
            "reading the existing kernel", &existing);
        !s.ok()) {
      return s;
    }
    if (existing.rows() != 1) {
      return Status::Corruption(fmt::format(
          "plan database {}: a kernel insert conflicted but no kernel has its key", location()));
    }
    *id = existing.Int64(0, 0);
    if (kernel.replace) {
      if (Status s = conn_->Exec(
              "UPDATE kernels SET \"binary\" = $2, checksum = $3, created = $4, name = $5, "
              "source = $6, options = $7 WHERE id = $1",
              pg::Params()
                  .Int64(*id)
                  .Bytea(kernel.binary)
                  .Int64(checksum)
                  .Int64(now)
                  .Text(kernel.text.name)
                  .Text(kernel.text.source)
                  .Text(kernel.text.options),
              "replacing a compiled kernel");
          !s.ok()) {
        return s;
      }
    }
  }
  if (!plan_id.has_value()) return inserted.CheckTypes();
  return conn_->Exec(
      "INSERT INTO plan_kernels (plan_id, kernel_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
      pg::Params().Int64(*plan_id).Int64(*id), "linking a kernel to its plan");
}

Status PostgresPlanRepository::WriteKernelLink(EnvironmentRowId environment, const KernelKey& key,
                                               PlanRowId plan, bool* linked) {
  pg::Result r;
  if (Status s = conn_->Exec(
          "INSERT INTO plan_kernels (plan_id, kernel_id) SELECT $1, id FROM kernels "
          "WHERE environment_id = $2 AND source_hash = $3 AND arch = $4 AND compiler_version = $5 "
          "ON CONFLICT DO NOTHING",
          pg::Params()
              .Int64(plan)
              .Int64(environment)
              .Bytea(key.source_hash)
              .Text(key.arch)
              .Text(key.compiler_version),
          "linking a stored kernel to a plan", &r);
      !s.ok()) {
    return s;
  }
  *linked = r.affected() > 0;
  return Status::Ok();
}

Status PostgresPlanRepository::InsertPlan(EnvironmentRowId environment, const NewPlan& plan,
                                          InsertResult* result) {
  if (Status s = CheckWritable("publishing a plan"); !s.ok()) return s;
  return conn_->Transaction("publishing a plan", [&]() -> Status {
    if (Status r = WritePlanRow(environment, plan, NowUnixMillis(), result); !r.ok()) return r;
    if (result->outcome != InsertOutcome::kInserted &&
        result->outcome != InsertOutcome::kReplacedQuarantined) {
      return Status::Ok();
    }
    return WriteMissColumns(result->plan_id, plan);
  });
}

Status PostgresPlanRepository::AppendTriggers(PlanRowId plan, std::span<const TriggerRow> triggers,
                                              size_t* added) {
  if (Status s = CheckWritable("appending triggers"); !s.ok()) return s;
  size_t count = 0;
  Status s = conn_->Transaction("appending triggers", [&] {
    count = 0;
    return WriteTriggerRows(plan, triggers, &count);
  });
  if (added != nullptr) *added = s.ok() ? count : 0;
  return s;
}

Status PostgresPlanRepository::Publish(const PublishBatch& batch, PublishResult* result) {
  if (Status s = CheckWritable("publishing plans"); !s.ok()) return s;
  return conn_->Transaction("publishing plans",
                            [&] { return WriteBatch(batch, NowUnixMillis(), result); });
}

Status PostgresPlanRepository::PutKernel(EnvironmentRowId environment, const NewKernel& kernel,
                                         KernelRowId* id, bool* added) {
  if (Status s = CheckWritable("storing a compiled kernel"); !s.ok()) return s;
  bool inserted = false;
  Status s = conn_->Transaction("storing a compiled kernel", [&] {
    return WriteKernelRow(environment, kernel, kernel.plan_id, NowUnixMillis(), id, &inserted);
  });
  if (added != nullptr) *added = s.ok() && inserted;
  return s;
}

Status PostgresPlanRepository::GetKernel(EnvironmentRowId environment, const KernelKey& key,
                                         StoredKernel* out) {
  pg::Result r;
  if (Status s = conn_->Exec(
          "SELECT id, plan_id, \"binary\", checksum, name, source, options FROM kernels WHERE "
          "environment_id = $1 AND source_hash = $2 AND arch = $3 AND compiler_version = $4",
          pg::Params()
              .Int64(environment)
              .Bytea(key.source_hash)
              .Text(key.arch)
              .Text(key.compiler_version),
          "loading a compiled kernel", &r);
      !s.ok()) {
    return s;
  }
  if (r.rows() != 1) {
    return Status::NotFound(
        fmt::format("no compiled kernel for arch {}, compiler {}", key.arch, key.compiler_version));
  }
  out->id = r.Int64(0, 0);
  out->plan_id = r.IsNull(0, 1) ? std::nullopt : std::optional<PlanRowId>(r.Int64(0, 1));
  out->key = key;
  out->binary = r.Bytea(0, 2);
  out->checksum = FromColumn(r.Int64(0, 3));
  out->text = {.name = r.Text(0, 4), .source = r.Text(0, 5), .options = r.Text(0, 6)};
  if (Status s = r.CheckTypes(); !s.ok()) return s;
  const uint64_t actual = KernelChecksum(out->binary);
  if (actual == out->checksum) return Status::Ok();
  const KernelRowId bad = out->id;
  const uint64_t stored = out->checksum;
  *out = StoredKernel();
  std::string fate = "left in place (read-only database)";
  if (writable()) {
    Status removed = conn_->Exec("DELETE FROM kernels WHERE id = $1", pg::Params().Int64(bad),
                                 "deleting a damaged kernel");
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
