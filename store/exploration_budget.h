// ExplorationBudget: the ledger of one workload's exploration budget ([fusion.search]
// max_explorations) for PersistentPlans. The budget lives in the database's workload row, so
// that processes (on a server, hosts) running together never explore more than the cap between
// them: an exploration is reserved there before it happens (TryReserveExploration) and is spent
// at once. Counting in this process, from the row's count at open, is the fallback when the
// database cannot answer (unwritable, a read failure, a server out of reach).
//
// Threading: called under the device server's lock, like PersistentPlans.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/core/status.h"
#include "store/database_reader.h"
#include "store/repository/plan_repository.h"

namespace ember {

class ExplorationBudget {
 public:
  // Reads the workload's row of `environment`, creating it where the database can be written.
  // `unwritable` says why the database cannot be written (empty: it can); a row that cannot be
  // created makes it so, and the row is then only looked for. A workload without a row has no
  // id (0), and its cap is the configured one.
  static Status Open(PlanRepository& db, EnvironmentRowId environment, const std::string& workload,
                     std::optional<size_t> max_explorations, std::string* unwritable,
                     ExplorationBudget* out);

  // The workload's row (0: none), for the writer's counters.
  WorkloadRowId workload() const { return workload_; }

  // Whether the workload may explore once more: a reservation the database grants, else the
  // local count below the cap. A grant holds until Spend.
  bool Allowed(DatabaseReader& db);
  // An exploration happened: counted here; returns whether the database counted it already (it
  // was reserved), so that the writer does not count it twice.
  bool Spend();

 private:
  WorkloadRowId workload_ = 0;
  int64_t explorations_at_open_ = 0;
  // The cap in force: the workload row's, else the configured one.
  std::optional<int64_t> cap_;
  // The configured cap (the workload row's own wins in the database too).
  std::optional<int64_t> configured_cap_;
  int64_t explored_here_ = 0;
  // An exploration the database granted and that is not yet spent.
  bool reserved_ = false;
};

}  // namespace ember
