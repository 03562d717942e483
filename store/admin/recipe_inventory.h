// Graph recipes (Note [Graph recipes], store/persistent_recipes.h) as the tools read them: every
// row with whether it passes its checksum, and the compiled kernels each environment stores,
// which a recipe's kernels must be among (`ember-plans recipes`, `verify`, `gc`, bundles). The
// engine's own read is PlanRepository::LoadGraphRecipes.
//
// Threading: as the SqlSession it is given — one thread at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/status.h"
#include "store/repository/plan_rows.h"
#include "store/repository/sql_session.h"

namespace ember {

// The first schema version with graph_recipes (migrations/0006_graph_recipes.sql).
inline constexpr int kGraphRecipesSchema = 6;

struct RecipeFilter {
  std::optional<EnvironmentRowId> environment;
  std::optional<std::string> workload;
  std::optional<uint64_t> key;
};

// The recipes `filter` selects, by environment id, workload, then key (as unsigned), damaged
// rows included (GraphRecipeRecord::checksum_ok). REQUIRES: inside a transaction of the
// caller's (it starts none), and schema version >= kGraphRecipesSchema. On either database.
Status ReadGraphRecipes(SqlSession& sql, const RecipeFilter& filter,
                        std::vector<GraphRecipeRecord>* out);
// The same in a read transaction of its own.
Status ListGraphRecipes(SqlSession& sql, const RecipeFilter& filter,
                        std::vector<GraphRecipeRecord>* out);

// (environment, KernelBinaryKey hash) of each stored kernel; the hash is kernels.source_hash
// (column_encoding.h's Hash64Bytes), whatever the kernel's arch and compiler.
using StoredKernelHashes = std::set<std::pair<EnvironmentRowId, uint64_t>>;
// Every stored kernel's, except the rows whose ids are in `except` (those gc is removing).
// REQUIRES: inside a transaction of the caller's.
Status ReadStoredKernelHashes(SqlSession& sql, const std::set<int64_t>& except,
                              StoredKernelHashes* out);
// The kernels `recipe` names that its environment does not store, in its list's order.
std::vector<uint64_t> MissingRecipeKernels(const GraphRecipeRecord& recipe,
                                           const StoredKernelHashes& stored);

}  // namespace ember
