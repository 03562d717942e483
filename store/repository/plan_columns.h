// The columns a plans row is written with: one list for every writer of plan rows (the
// repository's inserts and its repair of a quarantined row, sql_plan_repository_writes.cpp; the
// bundle writer, store/admin/plan_bundle_export.cpp, through store/sqlite/row_writes.h).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "store/repository/plan_rows.h"
#include "store/repository/sql_session.h"

namespace ember {

// The twelve columns of a plans row, in the table's order and in column form
// (column_encoding.h). Views into the caller's data, which must outlive the use.
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

// `plan`'s columns for `environment`, with its checksum and sizes computed; `key` is
// PlanKeyBytes(plan.plan_key) (column_encoding.h), created is `now`.
PlanColumns ColumnsOf(EnvironmentRowId environment, const NewPlan& plan, const Blob& key,
                      int64_t now);

// `row` as ?1 to ?12, in PlanColumns' order.
std::vector<SqlValue> ValuesOf(const PlanColumns& row);

}  // namespace ember
