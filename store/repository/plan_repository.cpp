// What every PlanRepository shares: hits counted per plan, then written as counts.
#include "store/repository/plan_repository.h"

#include <map>
#include <vector>

namespace ember {

Status PlanRepository::RecordHits(std::span<const PlanRowId> plans,
                                  std::optional<WorkloadRowId> workload) {
  std::map<PlanRowId, int64_t> counted;
  for (const PlanRowId id : plans) ++counted[id];
  const std::vector<std::pair<PlanRowId, int64_t>> counts(counted.begin(), counted.end());
  return RecordHitCounts(counts, workload);
}

}  // namespace ember
