// What a plan bundle carries (Note [Plan bundles], store/admin/plan_bundle.h), as read from the
// database it is exported from or from the bundle itself on import. Used by plan_bundle_export.cpp
// and plan_bundle_import.cpp only.
#pragma once

#include <vector>

#include "engine/core/status.h"
#include "store/admin/kernel_inventory.h"
#include "store/admin/plan_inventory.h"
#include "store/repository/sql_session.h"

namespace ember {

// What a bundle carries, as read from its source (export) or from the bundle itself (import).
struct BundleContents {
  std::vector<EnvironmentRecord> environments;
  std::vector<PlanRecord> plans;
  std::vector<KernelRecord> kernels;
  std::vector<GraphRecipeRecord> recipes;  // from schema 6 on (recipe_inventory.h)
};

// The environments, the plans `filter` selects and every kernel (with its text, binary and
// links) of the database behind `sql`: a plan database exported from (a file or a server), or
// the bundle file itself, whose schema version is `schema_version`; with filter.workload, only
// that workload's recipes.
Status ReadBundleContents(SqlSession& sql, int schema_version, const PlanFilter& filter,
                          BundleContents* out);

}  // namespace ember
