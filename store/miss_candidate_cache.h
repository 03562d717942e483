// MissCandidateCache: PersistentPlans' part in explaining a miss (Note [Explaining a miss],
// engine/stream/miss_explanation.h): the stored plans a missed segment is compared with, read
// from the database by first op kind (this environment's, else other environments' to name an
// environment miss). Each kind's are read at most once per kMaxAge, so that a workload past its
// exploration budget, whose every segment misses, does not read the database every step.
//
// Threading: called under the device server's lock, like PersistentPlans.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/ir/hash.h"
#include "engine/stream/plan_backing.h"
#include "store/repository/plan_repository.h"

namespace ember {

class MissCandidateCache {
 public:
  // `environment_text`: CanonicalEnvironmentText of this process's environment, which another
  // environment's candidates are told apart from.
  explicit MissCandidateCache(std::string environment_text = "")
      : environment_text_(std::move(environment_text)) {}

  // Appends the candidates for `first` that `known` says the store lacks (plans in the store
  // are the processor's own candidates already), reading `db` when first's kind was not read
  // within kMaxAge. A failed read costs the explanation its candidates, nothing else.
  void Collect(const OperationIr& first, PlanRepository& db, EnvironmentRowId environment,
               const std::function<bool(const Hash128&)>& known,
               std::vector<StoredPlanForMiss>* out);

 private:
  static constexpr size_t kMaxCandidates = 32;
  static constexpr size_t kMaxOtherEnvironmentCandidates = 8;
  static constexpr std::chrono::seconds kMaxAge{2};
  struct Candidate {
    Hash128 key;
    StoredPlanForMiss plan;
  };
  struct Cached {
    std::chrono::steady_clock::time_point read_at;
    std::vector<Candidate> plans;
  };
  // Decodes the rows of `loaded` into `out`; `difference` is set for another environment's.
  static void Add(const LoadedPlans& loaded, const std::string& difference,
                  std::vector<Candidate>* out);

  std::string environment_text_;
  std::unordered_map<int, Cached> by_kind_;
};

}  // namespace ember
