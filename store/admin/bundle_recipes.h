// The graph recipes of a plan bundle (Note [Plan bundles], store/admin/plan_bundle.h): what
// export writes and what import takes. Used by plan_bundle_export.cpp and plan_bundle_import.cpp
// only.
//
// A recipe is data that only lowers how often a tape must repeat before it is captured (Note
// [Graph recipes], store/persistent_recipes.h), so a bundle's recipes need no trust of their
// own; but a recipe is only worth keeping where the kernels it launches are stored. Export
// therefore writes the recipes of the exported environments (and workload, when the export
// names one) that pass their checksum and PlanRepository::CheckGraphRecipe and whose every
// kernel the bundle carries; import adds those that pass the same checks and whose every kernel
// the target stores in that environment once the bundle's kernels are in (so without
// --trust-kernels, only recipes of kernels the target compiled itself). The others are counted
// as skipped. A recipe the target has under the same key keeps its row.
//
// REQUIRES for both functions: inside the caller's write transaction on the database written.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "store/admin/plan_bundle.h"
#include "store/repository/plan_rows.h"
#include "store/repository/sql_session.h"

namespace ember {

// Writes into the bundle `bundle` the recipes of `recipes` (read from the source) that export
// keeps; `env_ids` maps the source's environment row ids to the bundle's, and the bundle's
// kernels table must be written already. *written and *skipped count them.
Status WriteBundleRecipes(SqlSession& bundle, const std::vector<GraphRecipeRecord>& recipes,
                          const std::map<EnvironmentRowId, EnvironmentRowId>& env_ids,
                          int64_t* written, int64_t* skipped);

// Adds the bundle's `recipes` that import keeps to `target` (a SQLite file or a server);
// `env_ids` maps the bundle's accepted environments to the target's. Counts into
// result->recipes_added, recipes_existing and recipes_skipped.
Status ImportBundleRecipes(SqlSession& target, const std::vector<GraphRecipeRecord>& recipes,
                           const std::map<EnvironmentRowId, EnvironmentRowId>& env_ids, int64_t now,
                           ImportResult* result);

}  // namespace ember
