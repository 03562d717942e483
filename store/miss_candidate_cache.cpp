#include "store/miss_candidate_cache.h"

#include <utility>

#include <fmt/format.h>

#include "engine/core/log.h"
#include "store/codec/environment_fingerprint.h"
#include "store/codec/plan_codec.h"
#include "store/repository/plan_row_check.h"

namespace ember {

void MissCandidateCache::Add(const LoadedPlans& loaded, const std::string& difference,
                             std::vector<Candidate>* out) {
  for (const StoredPlan& row : loaded.plans) {
    StoredPlanForMiss plan{.label = fmt::format("stored plan {}", row.id),
                           .found_dims = row.found_dims,
                           .environment_difference = difference};
    // A row that does not decode is left out here: the load that uses plans judges it.
    if (!DecodeOperations(row.ops_blob, &plan.operations).ok() || plan.operations.empty()) {
      continue;
    }
    bool decoded = true;
    for (const TriggerRow& trigger : row.triggers) {
      ExecutionTrigger t;
      decoded = decoded && DecodeTriggerRow(trigger, &t).ok();
      plan.triggers.push_back(std::move(t));
    }
    if (decoded) out->push_back({row.plan_key, std::move(plan)});
  }
}

void MissCandidateCache::Collect(const OperationIr& first, PlanRepository& db,
                                 EnvironmentRowId environment,
                                 const std::function<bool(const Hash128&)>& known,
                                 std::vector<StoredPlanForMiss>* out) {
  const int kind = static_cast<int>(first.kind);
  const auto now = std::chrono::steady_clock::now();
  auto [cached, fresh] = by_kind_.try_emplace(kind);
  Cached& cache = cached->second;
  if (fresh || now - cache.read_at >= kMaxAge) {
    cache.read_at = now;
    cache.plans.clear();
    // Informative reads: a failure costs the explanation its stored candidates, nothing else
    // (the plan loads judge the database).
    LoadedPlans loaded;
    Status s = db.LoadPlansByFirstKind(environment, kind, kMaxCandidates, &loaded);
    if (s.ok()) Add(loaded, "", &cache.plans);
    std::vector<EnvironmentRow> environments;
    if (s.ok() && loaded.plans.empty()) s = db.ListEnvironments(&environments);
    for (const EnvironmentRow& other : environments) {
      if (!s.ok() || other.id == environment) continue;
      LoadedPlans theirs;
      s = db.LoadPlansByFirstKind(other.id, kind, kMaxOtherEnvironmentCandidates, &theirs);
      if (s.ok()) {
        Add(theirs, EnvironmentDifference(environment_text_, other.description), &cache.plans);
      }
    }
    if (!s.ok()) {
      LogFusion(LogLevel::kMedium, [&] {
        return fmt::format("[store] reading the plans a miss is compared with failed: {}",
                           s.ToString());
      });
    }
  }
  for (const Candidate& candidate : cache.plans) {
    if (!known(candidate.key)) out->push_back(candidate.plan);
  }
}

}  // namespace ember
