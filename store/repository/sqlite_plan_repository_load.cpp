// SqlitePlanRepository's lookup: the plans of one first-op hash with their triggers, checksums
// verified (Note [Row checksums]); damaged rows are quarantined and logged once.
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "engine/core/log.h"
#include "store/codec/row_checksum.h"
#include "store/repository/sqlite_plan_repository.h"
#include "store/sqlite/column_encoding.h"
#include "store/sqlite/sqlite_statement.h"
#include "store/sqlite/sqlite_transaction.h"

namespace ember {

namespace {

// The plans of `environment` (those of one first-op hash, or all) and their triggers: at most
// `limit` rows, good or bad; `last_id` gets the id of the last row read (triggers are read up to
// it).
Status ReadPlans(SqliteDatabase& db, EnvironmentRowId environment,
                 std::optional<uint64_t> first_op_hash, size_t limit,
                 std::vector<StoredPlan>* plans, std::vector<BadPlanRow>* bad, PlanRowId* last_id) {
  SqliteStatement select;
  // Two statements rather than "?2 IS NULL OR …", so that the lookup keeps its index.
  if (Status s = db.Prepare(
          first_op_hash.has_value()
              ? "SELECT id, plan_key, ops_blob, plan_blob, checksum, num_ops, origin, "
                "first_op_hash, explore_ms FROM plans "
                "WHERE environment_id = ?1 AND first_op_hash = ?2 AND status = 'ok' ORDER BY id "
                "LIMIT ?3"
              : "SELECT id, plan_key, ops_blob, plan_blob, checksum, num_ops, origin, "
                "first_op_hash, explore_ms FROM plans "
                "WHERE environment_id = ?1 AND status = 'ok' ORDER BY id LIMIT ?3",
          "loading plans", &select);
      !s.ok()) {
    return s;
  }
  select.BindInt64(1, environment);
  if (first_op_hash.has_value()) select.BindInt64(2, ToColumn(*first_op_hash));
  // A negative LIMIT is none in SQLite.
  select.BindInt64(3, limit == PlanRepository::kAllRows ? -1 : static_cast<int64_t>(limit));
  *last_id = std::numeric_limits<PlanRowId>::max();
  size_t read = 0;
  for (;;) {
    bool row = false;
    if (Status s = select.Step(&row); !s.ok()) return s;
    if (!row) break;
    StoredPlan plan;
    plan.id = select.ColumnInt64(0);
    if (++read == limit) *last_id = plan.id;  // the read stops here: so do the triggers
    const std::optional<Hash128> key = PlanKeyFromBytes(select.ColumnBlob(1));
    plan.ops_blob = select.ColumnBlob(2);
    plan.plan_blob = select.ColumnBlob(3);
    plan.checksum = FromColumn(select.ColumnInt64(4));
    plan.num_ops = static_cast<uint32_t>(select.ColumnInt64(5));
    plan.origin = select.ColumnText(6);
    plan.first_op_hash = FromColumn(select.ColumnInt64(7));
    plan.explore_ms = select.ColumnDouble(8);
    const uint64_t actual = PlanChecksum(plan.ops_blob, plan.plan_blob);
    if (!key.has_value()) {
      bad->push_back({plan.id, "plan_key is not 16 bytes"});
    } else if (actual != plan.checksum) {
      bad->push_back({plan.id, fmt::format("checksum mismatch (stored 0x{:016x}, computed "
                                           "0x{:016x})",
                                           plan.checksum, actual)});
    } else {
      plan.plan_key = *key;
      plans->push_back(std::move(plan));
    }
  }
  return Status::Ok();
}

// Attaches each plan's triggers, in position order, for plans up to `last_id`. `plans` is
// sorted by id.
Status ReadTriggers(SqliteDatabase& db, EnvironmentRowId environment,
                    std::optional<uint64_t> first_op_hash, PlanRowId last_id,
                    std::vector<StoredPlan>* plans) {
  SqliteStatement select;
  if (Status s = db.Prepare(
          first_op_hash.has_value()
              ? "SELECT t.plan_id, t.kind, t.ops_blob FROM triggers t JOIN plans p ON p.id = "
                "t.plan_id WHERE p.environment_id = ?1 AND p.first_op_hash = ?2 AND p.status = "
                "'ok' AND p.id <= ?3 ORDER BY t.plan_id, t.position"
              : "SELECT t.plan_id, t.kind, t.ops_blob FROM triggers t JOIN plans p ON p.id = "
                "t.plan_id WHERE p.environment_id = ?1 AND p.status = 'ok' AND p.id <= ?3 "
                "ORDER BY t.plan_id, t.position",
          "loading triggers", &select);
      !s.ok()) {
    return s;
  }
  select.BindInt64(1, environment);
  if (first_op_hash.has_value()) select.BindInt64(2, ToColumn(*first_op_hash));
  select.BindInt64(3, last_id);
  auto plan = plans->begin();
  for (;;) {
    bool row = false;
    if (Status s = select.Step(&row); !s.ok()) return s;
    if (!row) break;
    const PlanRowId id = select.ColumnInt64(0);
    while (plan != plans->end() && plan->id < id) ++plan;
    if (plan == plans->end() || plan->id != id) continue;  // A row that failed its checks.
    plan->triggers.push_back({static_cast<int>(select.ColumnInt64(1)), select.ColumnBlob(2)});
  }
  return Status::Ok();
}

}  // namespace

Status SqlitePlanRepository::LoadAllPlans(EnvironmentRowId environment, LoadedPlans* out) {
  std::vector<BadPlanRow> bad;
  Status s = RunTransaction(db(), TransactionKind::kRead, "loading plans", [&]() -> Status {
    *out = LoadedPlans();
    bad.clear();
    PlanRowId last_id = 0;
    if (Status r =
            ReadPlans(db(), environment, std::nullopt, kAllRows, &out->plans, &bad, &last_id);
        !r.ok()) {
      return r;
    }
    return ReadTriggers(db(), environment, std::nullopt, last_id, &out->plans);
  });
  if (!s.ok()) return s;
  ReportBadRows(bad, out);
  return Status::Ok();
}

Status SqlitePlanRepository::LoadPlansByFirstOp(EnvironmentRowId environment,
                                                uint64_t first_op_hash, LoadedPlans* out,
                                                size_t limit) {
  // Reads through a log that is no longer the path's could mix its pages with another's.
  if (Status gone = database_->CheckWalStillAtPath(); !gone.ok()) {
    return Status::NotFound(fmt::format("plan database {}: {}", location(), gone.message()));
  }
  std::vector<BadPlanRow> bad;
  Status s = RunTransaction(db(), TransactionKind::kRead, "loading plans", [&]() -> Status {
    *out = LoadedPlans();
    bad.clear();
    PlanRowId last_id = 0;
    if (Status r = ReadPlans(db(), environment, first_op_hash, limit, &out->plans, &bad, &last_id);
        !r.ok()) {
      return r;
    }
    return ReadTriggers(db(), environment, first_op_hash, last_id, &out->plans);
  });
  if (!s.ok()) return s;
  ReportBadRows(bad, out);
  LogFusion(LogLevel::kMedium, [&] {
    return fmt::format("[store] loaded {} plan(s) for first-op {} from sqlite", out->plans.size(),
                       FormatHash(first_op_hash));
  });
  return Status::Ok();
}

Status SqlitePlanRepository::FindPlanByKey(EnvironmentRowId environment, const Hash128& plan_key,
                                           std::optional<PlanRowId>* id) {
  id->reset();
  SqliteStatement select;
  if (Status s = db().Prepare("SELECT id FROM plans WHERE environment_id = ?1 AND plan_key = ?2",
                              "finding a plan", &select);
      !s.ok()) {
    return s;
  }
  select.BindInt64(1, environment);
  select.BindBlob(2, PlanKeyBytes(plan_key));
  bool row = false;
  if (Status s = select.Step(&row); !s.ok()) return s;
  if (row) *id = select.ColumnInt64(0);
  return Status::Ok();
}

}  // namespace ember
