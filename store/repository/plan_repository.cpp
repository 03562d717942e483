// What every PlanRepository shares: hits counted per plan, then written as counts; what a load
// does with the damaged rows it skipped.
#include "store/repository/plan_repository.h"

#include <fmt/format.h>

#include <map>
#include <vector>

#include "engine/core/log.h"

namespace ember {

Status PlanRepository::CheckWritable(std::string_view what) const {
  if (writable()) return Status::Ok();
  return Status::Unavailable(
      fmt::format("plan database {}: refusing {}: {}", location(), what, read_only_reason()));
}

Status PlanRepository::EnsureEnvironment(const EnvironmentFingerprint& fingerprint,
                                         EnvironmentRowId* id) {
  return EnsureEnvironmentText(EnvironmentStableId(fingerprint),
                               CanonicalEnvironmentText(fingerprint), id);
}

Status PlanRepository::RecordHits(std::span<const PlanRowId> plans,
                                  std::optional<WorkloadRowId> workload) {
  std::map<PlanRowId, int64_t> counted;
  for (const PlanRowId id : plans) ++counted[id];
  const std::vector<std::pair<PlanRowId, int64_t>> counts(counted.begin(), counted.end());
  return RecordHitCounts(counts, workload);
}

Status PlanRepository::WriteBatch(const PublishBatch& batch, int64_t now, PublishResult* result) {
  *result = PublishResult();
  for (size_t i = 0; i < batch.plans.size(); ++i) {
    const PublishItem& item = batch.plans[i];
    InsertResult inserted;
    if (Status r = WritePlanRow(batch.environment_id, item.plan, now, &inserted); !r.ok()) return r;
    result->plans.push_back(inserted);
    if (inserted.outcome == InsertOutcome::kInserted ||
        inserted.outcome == InsertOutcome::kReplacedQuarantined) {
      if (Status r = WriteMissColumns(inserted.plan_id, item.plan); !r.ok()) return r;
    }
    // A key collision keeps the plan in memory only: nothing of it is linked to the other row.
    const bool ours = inserted.outcome != InsertOutcome::kKeyCollision;
    if (ours) {
      if (Status r = WriteTriggerRows(inserted.plan_id, item.triggers, &result->triggers_added);
          !r.ok()) {
        return r;
      }
    }
    const std::optional<PlanRowId> plan_id =
        ours ? std::optional<PlanRowId>(inserted.plan_id) : std::nullopt;
    for (const NewKernel& kernel : item.kernels) {
      KernelRowId id = 0;
      bool added = false;
      if (Status r = WriteKernelRow(batch.environment_id, kernel, plan_id, now, &id, &added);
          !r.ok()) {
        return r;
      }
      result->kernels_added += added ? 1 : 0;
    }
    if (ours) {
      for (const KernelKey& key : item.used_kernels) {
        bool linked = false;
        if (Status r = WriteKernelLink(batch.environment_id, key, inserted.plan_id, &linked);
            !r.ok()) {
          return r;
        }
        result->kernel_links_added += linked ? 1 : 0;
      }
    }
    if (publish_hook_) publish_hook_(i);
  }
  // Triggers and kernels of plans stored before: their rows may have gone since (gc), or, by
  // key, moved to a new row (Note [Plans gc removed], plan_writer.h). A gone plan is reported.
  for (size_t i = 0; i < batch.triggers.size(); ++i) {
    const TriggerAppend& append = batch.triggers[i];
    std::optional<PlanRowId> plan;
    if (Status r = ResolvePlanRow(batch.environment_id, append, &plan); !r.ok()) return r;
    if (!plan.has_value()) {
      result->plans_gone.push_back(i);
      continue;
    }
    if (Status r = WriteTriggerRows(*plan, append.triggers, &result->triggers_added); !r.ok()) {
      return r;
    }
  }
  for (const NewKernel& kernel : batch.kernels) {
    std::optional<PlanRowId> plan = kernel.plan_id;
    if (plan.has_value()) {
      if (Status r = ResolvePlanRow(batch.environment_id, {.plan_id = *plan}, &plan); !r.ok()) {
        return r;
      }
    }
    KernelRowId id = 0;
    bool added = false;
    if (Status r = WriteKernelRow(batch.environment_id, kernel, plan, now, &id, &added); !r.ok()) {
      return r;
    }
    result->kernels_added += added ? 1 : 0;
  }
  return Status::Ok();
}

void PlanRepository::ReportBadRows(std::span<const BadPlanRow> bad, LoadedPlans* out) {
  for (const BadPlanRow& row : bad) {
    ++out->quarantined;
    if (!reported_bad_plans_.insert(row.id).second) continue;
    if (writable()) {
      // The good plans are still worth returning when the quarantine itself fails.
      if (Status q = Quarantine(row.id, row.reason); !q.ok()) {
        LogFusion(LogLevel::kBasic, [&] {
          return fmt::format("[store] plan {} is damaged ({}) and could not be quarantined: {}",
                             row.id, row.reason, q.ToString());
        });
      }
    } else {
      LogFusion(LogLevel::kBasic, [&] {
        return fmt::format(
            "[store] plan {} in {} is damaged ({}); skipped (read-only, not "
            "quarantined)",
            row.id, location(), row.reason);
      });
    }
  }
}

}  // namespace ember
