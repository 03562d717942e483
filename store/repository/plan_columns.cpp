#include "store/repository/plan_columns.h"

#include <string>

#include "store/codec/row_checksum.h"
#include "store/repository/column_encoding.h"

namespace ember {

PlanColumns ColumnsOf(EnvironmentRowId environment, const NewPlan& plan, const Blob& key,
                      int64_t now) {
  return {.environment_id = environment,
          .first_op_hash = ToColumn(plan.first_op_hash),
          .plan_key = key,
          .ops_blob = plan.ops_blob,
          .plan_blob = plan.plan_blob,
          .checksum = ToColumn(PlanChecksum(plan.ops_blob, plan.plan_blob)),
          .ops_bytes = static_cast<int64_t>(plan.ops_blob.size()),
          .plan_bytes = static_cast<int64_t>(plan.plan_blob.size()),
          .num_ops = plan.num_ops,
          .explore_ms = plan.explore_ms,
          .created = now,
          .origin = plan.origin};
}

std::vector<SqlValue> ValuesOf(const PlanColumns& row) {
  const auto blob = [](std::span<const uint8_t> bytes) {
    return SqlValue(std::vector<uint8_t>(bytes.begin(), bytes.end()));
  };
  return {
      SqlValue(row.environment_id), SqlValue(row.first_op_hash), blob(row.plan_key),
      blob(row.ops_blob),           blob(row.plan_blob),         SqlValue(row.checksum),
      SqlValue(row.ops_bytes),      SqlValue(row.plan_bytes),    SqlValue(row.num_ops),
      SqlValue(row.explore_ms),     SqlValue(row.created),       SqlValue(std::string(row.origin))};
}

}  // namespace ember
