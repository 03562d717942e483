// SqlPlanRepository: environments, hits, quarantine, and the transactions of the public writes
// (a plan, triggers, a batch, a kernel) around the row writes of sql_plan_repository_writes.cpp.
// Loads are in _load.cpp, the workload ledger in _workloads.cpp.
#include "store/repository/sql_plan_repository.h"

#include <fmt/format.h>

#include "engine/core/clock.h"
#include "engine/core/log.h"

namespace ember {

namespace {

// *found is false when `stable_id` has no row; otherwise *id is set and the description checked.
Status FindEnvironment(SqlSession& sql, const std::string& stable_id,
                       const std::string& description, bool* found, EnvironmentRowId* id) {
  *found = false;
  std::string stored;
  Status s = sql.Query("SELECT id, description FROM environments WHERE fingerprint = ?1",
                       {SqlValue(stable_id)}, "looking up the environment", [&](const SqlRow& row) {
                         *id = row.Int64(0);
                         stored = row.Text(1);
                         *found = true;
                       });
  if (!s.ok() || !*found || stored == description) return s;
  return Status::Corruption(
      fmt::format("plan database {}: environment {} is stored as {} but should be {}",
                  sql.location(), stable_id, stored, description));
}

void LogInsert(const NewPlan& plan, const InsertResult& result) {
  LogFusion(LogLevel::kMedium, [&] {
    switch (result.outcome) {
      case InsertOutcome::kInserted:
        return fmt::format("[store] published plan {} ({} op(s), key {}, {} bytes)", result.plan_id,
                           plan.num_ops, FormatHash(plan.plan_key),
                           plan.ops_blob.size() + plan.plan_blob.size());
      case InsertOutcome::kExisting:
        return fmt::format("[store] plan {} (key {}) was already published; using it",
                           result.plan_id, FormatHash(plan.plan_key));
      case InsertOutcome::kReplacedQuarantined:
        return fmt::format("[store] published plan {} (key {}) over its quarantined row",
                           result.plan_id, FormatHash(plan.plan_key));
      case InsertOutcome::kKeyCollision:
        return fmt::format("[store] plan key {} is taken by plan {} with other ops; not stored",
                           FormatHash(plan.plan_key), result.plan_id);
    }
    return std::string();
  });
}

}  // namespace

Status SqlPlanRepository::ListEnvironments(std::vector<EnvironmentRow>* out) {
  return sql().ReadStatement("listing environments", [&] {
    out->clear();
    return sql().Query("SELECT id, fingerprint, description FROM environments ORDER BY id", {},
                       "listing environments", [&](const SqlRow& row) {
                         out->push_back({row.Int64(0), row.Text(1), row.Text(2)});
                       });
  });
}

Status SqlPlanRepository::EnsureEnvironmentText(std::string_view stable_id_text,
                                                std::string_view description_text,
                                                EnvironmentRowId* id) {
  const std::string stable_id(stable_id_text);
  const std::string description(description_text);
  bool found = false;
  Status s = sql().ReadStatement("looking up the environment", [&] {
    return FindEnvironment(sql(), stable_id, description, &found, id);
  });
  if (!s.ok() || found) return s;
  if (!writable()) {
    return Status::NotFound(fmt::format("plan database {} has no plans for environment {} ({})",
                                        location(), stable_id, description));
  }
  return sql().WriteTransaction("adding an environment", [&]() -> Status {
    if (Status r = sql().Exec(
            "INSERT INTO environments (fingerprint, description, created) VALUES (?1, ?2, ?3) "
            "ON CONFLICT (fingerprint) DO NOTHING",
            {SqlValue(stable_id), SqlValue(description), SqlValue(NowUnixMillis())},
            "adding an environment");
        !r.ok()) {
      return r;
    }
    bool now_found = false;
    if (Status r = FindEnvironment(sql(), stable_id, description, &now_found, id); !r.ok()) {
      return r;
    }
    if (now_found) return Status::Ok();
    return Status::Corruption(fmt::format(
        "plan database {}: environment {} vanished after its insert", location(), stable_id));
  });
}

Status SqlPlanRepository::RecordHitCounts(std::span<const std::pair<PlanRowId, int64_t>> counts,
                                          std::optional<WorkloadRowId> workload) {
  if (counts.empty()) return Status::Ok();
  if (Status s = CheckWritable("recording hits"); !s.ok()) return s;
  const int64_t now = NowUnixMillis();
  return sql().WriteTransaction("recording hits",
                                [&] { return WriteHitCounts(counts, workload, now); });
}

Status SqlPlanRepository::Quarantine(PlanRowId plan, std::string_view reason) {
  if (Status s = CheckWritable("quarantining a plan"); !s.ok()) return s;
  int64_t changed = 0;
  Status s = sql().WriteStatement("quarantining a plan", [&] {
    return sql().Exec(
        "UPDATE plans SET status = 'quarantined', quarantine_reason = ?2 WHERE id = ?1",
        {SqlValue(int64_t{plan}), SqlValue(std::string(reason))}, "quarantining a plan", &changed);
  });
  if (!s.ok()) return s;
  if (changed != 1) {
    return Status::NotFound(
        fmt::format("plan database {} has no plan {} to quarantine", location(), plan));
  }
  LogFusion(LogLevel::kBasic, [&] {
    return fmt::format("[store] quarantined plan {} in {}: {}", plan, location(), reason);
  });
  return Status::Ok();
}

Status SqlPlanRepository::InsertPlan(EnvironmentRowId environment, const NewPlan& plan,
                                     InsertResult* result) {
  if (Status s = CheckWritable("publishing a plan"); !s.ok()) return s;
  Status s = sql().WriteTransaction("publishing a plan", [&]() -> Status {
    if (Status r = WritePlanRow(environment, plan, NowUnixMillis(), result); !r.ok()) return r;
    if (result->outcome != InsertOutcome::kInserted &&
        result->outcome != InsertOutcome::kReplacedQuarantined) {
      return Status::Ok();
    }
    return WriteMissColumns(result->plan_id, plan);
  });
  if (s.ok()) LogInsert(plan, *result);
  return s;
}

Status SqlPlanRepository::AppendTriggers(PlanRowId plan, std::span<const TriggerRow> triggers,
                                         size_t* added) {
  if (Status s = CheckWritable("appending triggers"); !s.ok()) return s;
  size_t count = 0;
  Status s = sql().WriteTransaction("appending triggers", [&] {
    count = 0;
    return WriteTriggerRows(plan, triggers, &count);
  });
  if (added != nullptr) *added = s.ok() ? count : 0;
  return s;
}

Status SqlPlanRepository::Publish(const PublishBatch& batch, PublishResult* result) {
  if (Status s = CheckWritable("publishing plans"); !s.ok()) return s;
  Status s = sql().WriteTransaction("publishing plans",
                                    [&] { return WriteBatch(batch, NowUnixMillis(), result); });
  if (!s.ok()) return s;
  for (size_t i = 0; i < batch.plans.size(); ++i) LogInsert(batch.plans[i].plan, result->plans[i]);
  return Status::Ok();
}

Status SqlPlanRepository::PutKernel(EnvironmentRowId environment, const NewKernel& kernel,
                                    KernelRowId* id, bool* added) {
  if (Status s = CheckWritable("storing a compiled kernel"); !s.ok()) return s;
  bool inserted = false;
  Status s = sql().WriteTransaction("storing a compiled kernel", [&] {
    return WriteKernelRow(environment, kernel, kernel.plan_id, NowUnixMillis(), id, &inserted);
  });
  if (added != nullptr) *added = s.ok() && inserted;
  return s;
}

}  // namespace ember
