// SqlPlanRepository's lookup: the plans of one first-op hash (or all of an environment) with
// their triggers, checksums verified (Note [Row checksums], ReadLoadedPlan); damaged rows are
// quarantined and logged once.
#include <fmt/format.h>

#include <limits>

#include "engine/core/log.h"
#include "store/repository/column_encoding.h"
#include "store/repository/plan_row_check.h"
#include "store/repository/sql_plan_repository.h"

namespace ember {

Status SqlPlanRepository::LoadPlans(EnvironmentRowId environment,
                                    std::optional<uint64_t> first_op_hash, size_t limit,
                                    LoadedPlans* out) {
  // The plans first, limited, then the triggers of those up to the last one read, in one
  // snapshot. Without a first op its condition is left out rather than written "?3 IS NULL OR
  // …", so that the lookup keeps its index.
  const std::string by_first_op = first_op_hash.has_value() ? "AND p.first_op_hash = ?3 " : "";
  const std::string select_plans = fmt::format(
      "SELECT {} FROM plans p WHERE p.environment_id = ?1 {}AND p.status = 'ok' ORDER BY p.id{}",
      kLoadedPlanColumns, first_op_hash.has_value() ? "AND p.first_op_hash = ?2 " : "",
      limit == kAllRows ? std::string() : fmt::format(" LIMIT {}", limit));
  const std::string select_triggers = fmt::format(
      "SELECT t.plan_id, t.kind, t.ops_blob FROM triggers t JOIN plans p ON p.id = t.plan_id "
      "WHERE p.environment_id = ?1 AND p.id <= ?2 {}AND p.status = 'ok' "
      "ORDER BY t.plan_id, t.position",
      by_first_op);
  std::vector<SqlValue> args = {SqlValue(int64_t{environment})};
  if (first_op_hash.has_value()) args.emplace_back(ToColumn(*first_op_hash));
  std::vector<BadPlanRow> bad;
  Status s = sql().ReadTransaction("loading plans", [&]() -> Status {
    *out = LoadedPlans();
    bad.clear();
    PlanRowId last_id = std::numeric_limits<PlanRowId>::max();
    size_t read = 0;
    Status q = sql().Query(select_plans, args, "loading plans", [&](const SqlRow& row) {
      StoredPlan plan;
      BadPlanRow problem;
      if (ReadLoadedPlan(row, &plan, &problem)) {
        out->plans.push_back(std::move(plan));
      } else {
        bad.push_back(std::move(problem));
      }
      if (++read == limit) last_id = row.Int64(0);  // the read stops here: so do the triggers
    });
    if (!q.ok()) return q;
    std::vector<SqlValue> trigger_args = {SqlValue(int64_t{environment}), SqlValue(last_id)};
    if (first_op_hash.has_value()) trigger_args.emplace_back(ToColumn(*first_op_hash));
    auto plan = out->plans.begin();
    return sql().Query(select_triggers, trigger_args, "loading triggers", [&](const SqlRow& row) {
      const PlanRowId id = row.Int64(0);
      while (plan != out->plans.end() && plan->id < id) ++plan;
      if (plan == out->plans.end() || plan->id != id) return;  // A row that failed its checks.
      plan->triggers.push_back({static_cast<int>(row.Int64(1)), row.Blob(2)});
    });
  });
  if (!s.ok()) return s;
  ReportBadRows(bad, out);
  return Status::Ok();
}

Status SqlPlanRepository::LoadAllPlans(EnvironmentRowId environment, LoadedPlans* out) {
  return LoadPlans(environment, std::nullopt, kAllRows, out);
}

Status SqlPlanRepository::LoadPlansByFirstOp(EnvironmentRowId environment, uint64_t first_op_hash,
                                             LoadedPlans* out, size_t limit) {
  if (Status s = CheckBeforeReading(); !s.ok()) return s;
  if (Status s = LoadPlans(environment, first_op_hash, limit, out); !s.ok()) return s;
  LogFusion(LogLevel::kMedium, [&] {
    return fmt::format("[store] loaded {} plan(s) for first-op {} from {}", out->plans.size(),
                       FormatHash(first_op_hash), backend());
  });
  return Status::Ok();
}

Status SqlPlanRepository::FindPlanByKey(EnvironmentRowId environment, const Hash128& plan_key,
                                        std::optional<PlanRowId>* id) {
  return sql().ReadStatement("finding a plan", [&] {
    id->reset();
    return sql().Query("SELECT id FROM plans WHERE environment_id = ?1 AND plan_key = ?2",
                       {SqlValue(int64_t{environment}), SqlValue(PlanKeyBytes(plan_key))},
                       "finding a plan", [&](const SqlRow& row) { *id = row.Int64(0); });
  });
}

}  // namespace ember
