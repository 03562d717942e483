// The row writes that PlanRepository's methods and its batched Publish share. Each runs inside
// the caller's write transaction and does not start one.
// REQUIRES for every function that takes a `db`: it is writable and inside a BEGIN IMMEDIATE
// transaction.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "engine/core/status.h"
#include "store/repository/plan_rows.h"
#include "store/sqlite/sqlite_database.h"

namespace ember {

// The twelve columns a plans row is written with, in the table's order and in column form
// (column_encoding.h): what InsertPlanRow, its repair of a quarantined row and the bundle writer
// (plan_bundle.cpp) bind. Views into the caller's data, which must outlive the bind.
struct PlanColumns {
  EnvironmentRowId environment_id = 0;
  int64_t first_op_hash = 0;
  std::span<const uint8_t> plan_key;
  std::span<const uint8_t> ops_blob;
  std::span<const uint8_t> plan_blob;
  int64_t checksum = 0;
  int64_t ops_bytes = 0;
  int64_t plan_bytes = 0;
  int64_t num_ops = 0;
  double explore_ms = 0;
  int64_t created = 0;
  std::string_view origin;
};

// INSERT INTO plans of PlanColumns' columns as ?1 to ?12; callers may append a conflict clause.
inline constexpr char kInsertPlanColumns[] =
    "INSERT INTO plans (environment_id, first_op_hash, plan_key, ops_blob, plan_blob, checksum, "
    "ops_bytes, plan_bytes, num_ops, explore_ms, created, origin) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";

// Binds `row` to ?1 to ?12 of `stmt`, in PlanColumns' order. Needs no transaction of its own.
void BindPlanColumns(SqliteStatement& stmt, const PlanColumns& row);

// Inserts `plan`, or applies the "existing plan wins" rule (plan_repository.h) on a conflict.
Status InsertPlanRow(SqliteDatabase& db, EnvironmentRowId environment, const NewPlan& plan,
                     int64_t now, InsertResult* result);

// Appends the triggers `plan` lacks, in order; *added += how many were new. NotFound when the
// plan does not exist.
Status AppendTriggerRows(SqliteDatabase& db, PlanRowId plan, std::span<const TriggerRow> triggers,
                         size_t* added);

// Links the kernel row of `key` in `environment` to `plan` (plan_kernels), when such a row
// exists; *linked tells whether a new link was made.
Status LinkKernelRow(SqliteDatabase& db, EnvironmentRowId environment, const KernelKey& key,
                     PlanRowId plan, bool* linked);

// Inserts `kernel`, with `plan_id` in place of kernel.plan_id, and links it to that plan
// (plan_kernels); an existing row with the same key wins, unless kernel.replace, which puts
// this binary and text in it. *added tells whether a row was inserted.
Status InsertKernelRow(SqliteDatabase& db, EnvironmentRowId environment, const NewKernel& kernel,
                       std::optional<PlanRowId> plan_id, int64_t now, KernelRowId* id, bool* added);

}  // namespace ember
