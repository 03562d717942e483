// Plan rows written with SQLite's own statements: what the bundle writer
// (store/admin/plan_bundle_export.cpp) binds, since a bundle is a SQLite file of its own. The
// repository writes its rows through SqlSession (sql_plan_repository_writes.cpp).
#pragma once

#include "store/repository/plan_columns.h"
#include "store/sqlite/sqlite_statement.h"

namespace ember {

// Binds `row` to ?1 to ?12 of `stmt` (kInsertPlanColumns), in PlanColumns' order.
void BindPlanColumns(SqliteStatement& stmt, const PlanColumns& row);

}  // namespace ember
