// SqlPlanRepository: the plan repository (plan_repository.h, whose rules it keeps) written once,
// on SqlSession's shared dialect (sql_session.h), for every database that speaks it: the
// workload ledger. A database joins by deriving from it with what is its own: the connection
// behind sql(), its upkeep (checkpoints, transient errors, reconnection, a change feed) and the
// hooks below. SqlitePlanRepository (a file) and PostgresPlanRepository (a server) do.
//
// Transactions: a read of one statement runs through sql().ReadStatement, a change of one
// statement through sql().WriteStatement, anything that must commit together in
// sql().WriteTransaction; so a SQLite file retries each while it is busy, and a server pays one
// round trip per statement.
//
// Threading: one thread at a time (one connection).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "engine/core/status.h"
#include "store/repository/plan_repository.h"

namespace ember {

class SqlPlanRepository : public PlanRepository {
 public:
  Status GetOrCreateWorkload(EnvironmentRowId environment, std::string_view name,
                             WorkloadRow* out) final;
  Status FindWorkload(EnvironmentRowId environment, std::string_view name, bool* found,
                      WorkloadRow* out) final;
  Status GetWorkload(WorkloadRowId workload, WorkloadRow* out) final;
  Status AddExplorations(WorkloadRowId workload, int64_t n, int64_t* count) final;
  Status TryReserveExploration(WorkloadRowId workload, std::optional<int64_t> cap_if_unset,
                               bool* granted, int64_t* count) final;
  Status SetCap(WorkloadRowId workload, std::optional<int64_t> max_explorations) final;
  Status ResetExplorations(WorkloadRowId workload) final;
  Status AddCounters(WorkloadRowId workload, const WorkloadCounters& counters) final;

 protected:
  SqlPlanRepository() = default;

 private:
  // One UPDATE of workload ?1 (more values from `args`, ?2 on); NotFound when it has no row.
  Status UpdateWorkload(WorkloadRowId workload, std::string_view what, std::string_view sql,
                        std::vector<SqlValue> args);
};

}  // namespace ember
