// The row writes that PlanRepository's methods and its batched Publish share. Each runs inside
// the caller's write transaction and does not start one.
// REQUIRES for every function: `db` is writable and inside a BEGIN IMMEDIATE transaction.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "engine/core/status.h"
#include "store/repository/plan_rows.h"
#include "store/sqlite/sqlite_database.h"

namespace ember {

// Inserts `plan`, or applies the "existing plan wins" rule (plan_repository.h) on a conflict.
Status InsertPlanRow(SqliteDatabase& db, EnvironmentRowId environment, const NewPlan& plan,
                     int64_t now, InsertResult* result);

// Appends the triggers `plan` lacks, in order; *added += how many were new.
Status AppendTriggerRows(SqliteDatabase& db, PlanRowId plan, std::span<const TriggerRow> triggers,
                         size_t* added);

// Inserts `kernel`, with `plan_id` in place of kernel.plan_id; an existing row with the same key
// wins. *added tells which happened.
Status InsertKernelRow(SqliteDatabase& db, EnvironmentRowId environment, const NewKernel& kernel,
                       std::optional<PlanRowId> plan_id, int64_t now, KernelRowId* id, bool* added);

}  // namespace ember
