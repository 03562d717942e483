// PlanRepository's answers for plans removed under live writers (Note [Plans gc removed],
// plan_writer.h): finding a trigger's plan again inside the write, reading what stores a plan
// again, and dropping the trigger rows a repaired row cannot use. Written once on sql()
// (sql_session.h's shared dialect), for every database.
#include <fmt/format.h>

#include "store/repository/column_encoding.h"
#include "store/repository/plan_repository.h"
#include "store/repository/plan_row_check.h"

namespace ember {

namespace {

// On a server the row is locked until the commit: a gc deleting it waits (and a gc that was
// first has committed, so the row is not seen). A SQLite write transaction excludes gc already.
std::string Locked(SqlSession& sql, std::string_view select) {
  return fmt::format("{}{}", select, sql.RowLockClause());
}

}  // namespace

Status PlanRepository::ResolvePlanRow(EnvironmentRowId environment, const TriggerAppend& append,
                                      std::optional<PlanRowId>* out) {
  out->reset();
  const auto found = [&](const SqlRow& row) { *out = row.Int64(0); };
  if (append.plan_key.has_value()) {
    return sql().Query(
        Locked(sql(), "SELECT id FROM plans WHERE environment_id = ?1 AND plan_key = ?2"),
        {SqlValue(int64_t{environment}), SqlValue(PlanKeyBytes(*append.plan_key))},
        "finding a plan by its key", found);
  }
  return sql().Query(Locked(sql(), "SELECT id FROM plans WHERE id = ?1"),
                     {SqlValue(int64_t{append.plan_id})}, "finding a plan", found);
}

Status PlanRepository::ReadPlanItem(PlanRowId plan, std::optional<PublishItem>* out) {
  return sql().ReadTransaction("reading a plan", [&]() -> Status {
    out->reset();
    bool bad_key = false;
    Status s = sql().Query(
        "SELECT first_op_hash, plan_key, ops_blob, plan_blob, num_ops, explore_ms, origin, "
        "first_op_kind FROM plans WHERE id = ?1 AND status = 'ok'",
        {SqlValue(int64_t{plan})}, "reading a plan", [&](const SqlRow& row) {
          const std::optional<Hash128> key = PlanKeyFromBytes(row.Blob(1));
          if (!key.has_value()) {
            bad_key = true;
            return;
          }
          PublishItem item;
          item.plan = {.first_op_hash = FromColumn(row.Int64(0)),
                       .plan_key = *key,
                       .ops_blob = row.Blob(2),
                       .plan_blob = row.Blob(3),
                       .num_ops = static_cast<uint32_t>(row.Int64(4)),
                       .explore_ms = row.Double(5),
                       .origin = row.Text(6)};
          if (!row.IsNull(7)) item.plan.first_op_kind = static_cast<int>(row.Int64(7));
          *out = std::move(item);
        });
    if (!s.ok() || bad_key || !out->has_value()) return s;  // a bad key: as if gone
    return sql().Query("SELECT kind, ops_blob FROM triggers WHERE plan_id = ?1 ORDER BY position",
                       {SqlValue(int64_t{plan})}, "reading a plan's triggers",
                       [&](const SqlRow& row) {
                         (*out)->triggers.push_back({static_cast<int>(row.Int64(0)), row.Blob(1)});
                       });
  });
}

Status PlanRepository::DropInvalidTriggers(PlanRowId plan, const NewPlan& written) {
  ExecutionPlan decoded;
  if (!DecodePlanParts(written.ops_blob, written.plan_blob, {}, &decoded).ok()) {
    return Status::Ok();
  }
  struct Row {
    int64_t position = 0;
    TriggerRow trigger;
  };
  std::vector<Row> rows;
  Status s = sql().Query(
      "SELECT position, kind, ops_blob FROM triggers WHERE plan_id = ?1 ORDER BY position",
      {SqlValue(int64_t{plan})}, "reading a repaired plan's triggers", [&](const SqlRow& row) {
        rows.push_back({row.Int64(0), {static_cast<int>(row.Int64(1)), row.Blob(2)}});
      });
  if (!s.ok()) return s;
  std::vector<TriggerRow> kept;
  for (const Row& row : rows) {
    kept.push_back(row.trigger);
    if (DecodePlanParts(written.ops_blob, written.plan_blob, kept, &decoded).ok()) continue;
    kept.pop_back();
    s = sql().Exec("DELETE FROM triggers WHERE plan_id = ?1 AND position = ?2",
                   {SqlValue(int64_t{plan}), SqlValue(row.position)},
                   "dropping a trigger the repaired plan cannot use");
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace ember
