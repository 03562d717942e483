// PersistentPlans' part in explaining a miss (Note [Explaining a miss],
// engine/stream/miss_explanation.h): the stored plans a missed segment is compared with, read
// from the database by first op kind (this environment's, else other environments' to name an
// environment miss), and the miss's row for the workload (workload_misses, schema 3).
#include "store/persistent_plans.h"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "engine/core/log.h"
#include "store/codec/plan_codec.h"
#include "store/repository/plan_row_check.h"

namespace ember {

void PersistentPlans::AddMissCandidates(const LoadedPlans& loaded, const std::string& difference,
                                        std::vector<MissCandidate>* out) {
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

void PersistentPlans::MissCandidates(const OperationIr& first,
                                     std::vector<StoredPlanForMiss>* out) {
  if (reads_failed_ || reader_ == nullptr || reader_down_) return;
  const int kind = static_cast<int>(first.kind);
  const auto now = std::chrono::steady_clock::now();
  auto [cached, fresh] = miss_candidates_.try_emplace(kind);
  MissCandidateCache& cache = cached->second;
  if (fresh || now - cache.read_at >= kMissCandidateAge) {
    cache.read_at = now;
    cache.plans.clear();
    // Informative reads: a failure costs the explanation its stored candidates, nothing else
    // (the plan loads judge the database).
    LoadedPlans loaded;
    Status s = reader_->LoadPlansByFirstKind(environment_, kind, kMaxMissCandidates, &loaded);
    if (s.ok()) AddMissCandidates(loaded, "", &cache.plans);
    std::vector<EnvironmentRow> environments;
    if (s.ok() && loaded.plans.empty()) s = reader_->ListEnvironments(&environments);
    for (const EnvironmentRow& other : environments) {
      if (!s.ok() || other.id == environment_) continue;
      LoadedPlans theirs;
      s = reader_->LoadPlansByFirstKind(other.id, kind, kMaxOtherEnvironmentCandidates, &theirs);
      if (s.ok()) {
        AddMissCandidates(theirs, EnvironmentDifference(environment_text_, other.description),
                          &cache.plans);
      }
    }
    if (!s.ok()) {
      LogFusion(LogLevel::kMedium, [&] {
        return fmt::format("[store] reading the plans a miss is compared with failed: {}",
                           s.ToString());
      });
    }
  }
  // Plans in the in-memory store are the processor's own candidates already.
  for (const MissCandidate& candidate : cache.plans) {
    if (!known_.contains(candidate.key)) out->push_back(candidate.plan);
  }
}

void PersistentPlans::OnMiss(const MissExplanation& miss) {
  WorkloadMiss row{.pattern = miss.pattern,
                   .cause = std::string(MissCauseName(miss.cause)),
                   .op_position = static_cast<int64_t>(miss.op),
                   .op_name = miss.op_name,
                   .nearest_plan = miss.plan,
                   .detail = miss.Summary()};
  if (miss.value_here.has_value()) row.values.push_back(*miss.value_here);
  writer_->Miss(std::move(row));
}

}  // namespace ember
