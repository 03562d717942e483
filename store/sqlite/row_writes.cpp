#include "store/sqlite/row_writes.h"

namespace ember {

void BindPlanColumns(SqliteStatement& stmt, const PlanColumns& row) {
  stmt.BindInt64(1, row.environment_id);
  stmt.BindInt64(2, row.first_op_hash);
  stmt.BindBlob(3, row.plan_key);
  stmt.BindBlob(4, row.ops_blob);
  stmt.BindBlob(5, row.plan_blob);
  stmt.BindInt64(6, row.checksum);
  stmt.BindInt64(7, row.ops_bytes);
  stmt.BindInt64(8, row.plan_bytes);
  stmt.BindInt64(9, row.num_ops);
  stmt.BindDouble(10, row.explore_ms);
  stmt.BindInt64(11, row.created);
  stmt.BindText(12, row.origin);
}

}  // namespace ember
