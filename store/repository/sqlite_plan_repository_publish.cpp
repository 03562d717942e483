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
  Status s = RunTransaction(db(), TransactionKind::kWrite, "publishing a plan", [&] {
    return InsertPlanRow(db(), environment, plan, NowUnixMillis(), result);
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
  Status s = RunTransaction(db(), TransactionKind::kWrite, "publishing plans", [&]() -> Status {
    *result = PublishResult();
    const int64_t now = NowUnixMillis();
    for (size_t i = 0; i < batch.plans.size(); ++i) {
      const PublishItem& item = batch.plans[i];
      InsertResult inserted;
      if (Status r = InsertPlanRow(db(), batch.environment_id, item.plan, now, &inserted);
          !r.ok()) {
        return r;
      }
      result->plans.push_back(inserted);
      const bool ours = inserted.outcome != InsertOutcome::kKeyCollision;
      if (ours) {
        if (Status r =
                AppendTriggerRows(db(), inserted.plan_id, item.triggers, &result->triggers_added);
            !r.ok()) {
          return r;
        }
      }
      for (const NewKernel& kernel : item.kernels) {
        KernelRowId id = 0;
        bool added = false;
        const std::optional<PlanRowId> plan_id =
            ours ? std::optional<PlanRowId>(inserted.plan_id) : std::nullopt;
        if (Status r =
                InsertKernelRow(db(), batch.environment_id, kernel, plan_id, now, &id, &added);
            !r.ok()) {
          return r;
        }
        result->kernels_added += added ? 1 : 0;
      }
      for (const KernelKey& key : ours ? item.used_kernels : std::vector<KernelKey>()) {
        bool linked = false;
        if (Status r = LinkKernelRow(db(), batch.environment_id, key, inserted.plan_id, &linked);
            !r.ok()) {
          return r;
        }
        result->kernel_links_added += linked ? 1 : 0;
      }
      if (publish_hook_) publish_hook_(i);
    }
    for (const TriggerAppend& append : batch.triggers) {
      if (Status r =
              AppendTriggerRows(db(), append.plan_id, append.triggers, &result->triggers_added);
          !r.ok()) {
        return r;
      }
    }
    for (const NewKernel& kernel : batch.kernels) {
      KernelRowId id = 0;
      bool added = false;
      if (Status r =
              InsertKernelRow(db(), batch.environment_id, kernel, kernel.plan_id, now, &id, &added);
          !r.ok()) {
        return r;
      }
      result->kernels_added += added ? 1 : 0;
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  for (size_t i = 0; i < batch.plans.size(); ++i) LogInsert(batch.plans[i].plan, result->plans[i]);
  return Status::Ok();
}

}  // namespace ember
