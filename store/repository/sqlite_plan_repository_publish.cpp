// SqlitePlanRepository's publication: single plans, triggers, and batches committed in one
// transaction, under the "existing plan wins" rule (plan_repository.h).
#include <fmt/format.h>

#include "engine/core/clock.h"
#include "engine/core/log.h"
#include "store/repository/row_writes.h"
#include "store/repository/sqlite_plan_repository.h"
#include "store/sqlite/sqlite_transaction.h"

namespace ember {

namespace {

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

Status SqlitePlanRepository::InsertPlan(EnvironmentRowId environment, const NewPlan& plan,
                                        InsertResult* result) {
  if (Status s = database_->CheckWritable("publishing a plan"); !s.ok()) return s;
  Status s = RunTransaction(db(), TransactionKind::kWrite, "publishing a plan", [&]() -> Status {
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

Status SqlitePlanRepository::AppendTriggers(PlanRowId plan, std::span<const TriggerRow> triggers,
                                            size_t* added) {
  if (Status s = database_->CheckWritable("appending triggers"); !s.ok()) return s;
  size_t count = 0;
  Status s = RunTransaction(db(), TransactionKind::kWrite, "appending triggers", [&] {
    count = 0;
    return AppendTriggerRows(db(), plan, triggers, &count);
  });
  if (added != nullptr) *added = s.ok() ? count : 0;
  return s;
}

Status SqlitePlanRepository::Publish(const PublishBatch& batch, PublishResult* result) {
  if (Status s = database_->CheckWritable("publishing plans"); !s.ok()) return s;
  Status s = RunTransaction(db(), TransactionKind::kWrite, "publishing plans",
                            [&] { return WriteBatch(batch, NowUnixMillis(), result); });
  if (!s.ok()) return s;
  for (size_t i = 0; i < batch.plans.size(); ++i) LogInsert(batch.plans[i].plan, result->plans[i]);
  return Status::Ok();
}

Status SqlitePlanRepository::WritePlanRow(EnvironmentRowId environment, const NewPlan& plan,
                                          int64_t now, InsertResult* result) {
  if (Status s = InsertPlanRow(db(), environment, plan, now, result); !s.ok()) return s;
  if (result->outcome != InsertOutcome::kReplacedQuarantined) return Status::Ok();
  return DropInvalidTriggers(result->plan_id, plan);
}

Status SqlitePlanRepository::WriteTriggerRows(PlanRowId plan, std::span<const TriggerRow> triggers,
                                              size_t* added) {
  return AppendTriggerRows(db(), plan, triggers, added);
}

Status SqlitePlanRepository::WriteKernelRow(EnvironmentRowId environment, const NewKernel& kernel,
                                            std::optional<PlanRowId> plan_id, int64_t now,
                                            KernelRowId* id, bool* added) {
  return InsertKernelRow(db(), environment, kernel, plan_id, now, id, added);
}

Status SqlitePlanRepository::WriteKernelLink(EnvironmentRowId environment, const KernelKey& key,
                                             PlanRowId plan, bool* linked) {
  return LinkKernelRow(db(), environment, key, plan, linked);
}

}  // namespace ember
