#include "store/admin/bundle_recipes.h"

#include "store/admin/recipe_inventory.h"
#include "store/codec/row_checksum.h"
#include "store/repository/column_encoding.h"
#include "store/repository/plan_repository.h"

namespace ember {
namespace {

// Whether `r` is a recipe a bundle may carry: a whole row that the engine would use, of a
// mapped environment that stores every kernel it names (`stored`, by the environment it maps to).
bool Carried(const GraphRecipeRecord& r,
             const std::map<EnvironmentRowId, EnvironmentRowId>& env_ids,
             const StoredKernelHashes& stored) {
  const auto env = env_ids.find(r.environment_id);
  if (env == env_ids.end() || !r.checksum_ok ||
      !PlanRepository::CheckGraphRecipe(r.workload, r.recipe).ok()) {
    return false;
  }
  GraphRecipeRecord mapped = r;
  mapped.environment_id = env->second;
  return MissingRecipeKernels(mapped, stored).empty();
}

// Inserts `r` into environment `env` of `sql` unless a recipe of its key is there; *added says
// which.
Status InsertRecipe(SqlSession& sql, EnvironmentRowId env, const GraphRecipeRecord& r,
                    int64_t updated, bool* added) {
  int64_t changes = 0;
  const GraphRecipe& recipe = r.recipe;
  Status s = sql.Exec(
      "INSERT INTO graph_recipes (environment_id, workload, key, body, kernels, checksum, "
      "updated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (environment_id, workload, key) "
      "DO NOTHING",
      {SqlValue(int64_t{env}), SqlValue(r.workload), SqlValue(ToColumn(recipe.key)),
       SqlValue(recipe.body), SqlValue(RecipeKernelsColumn(recipe.kernels)),
       SqlValue(ToColumn(GraphRecipeChecksum(recipe.key, recipe.body, recipe.kernels))),
       SqlValue(updated)},
      "writing a graph recipe", &changes);
  *added = changes > 0;
  return s;
}

}  // namespace

Status WriteBundleRecipes(SqlSession& bundle, const std::vector<GraphRecipeRecord>& recipes,
                          const std::map<EnvironmentRowId, EnvironmentRowId>& env_ids,
                          int64_t* written, int64_t* skipped) {
  *written = 0;
  *skipped = 0;
  StoredKernelHashes carried;
  if (Status s = ReadStoredKernelHashes(bundle, {}, &carried); !s.ok()) return s;
  for (const GraphRecipeRecord& r : recipes) {
    if (!Carried(r, env_ids, carried)) {
      ++*skipped;
      continue;
    }
    bool added = false;
    if (Status s = InsertRecipe(bundle, env_ids.at(r.environment_id), r, r.updated, &added);
        !s.ok()) {
      return s;
    }
    ++*(added ? written : skipped);
  }
  return Status::Ok();
}

Status ImportBundleRecipes(SqlSession& target, const std::vector<GraphRecipeRecord>& recipes,
                           const std::map<EnvironmentRowId, EnvironmentRowId>& env_ids, int64_t now,
                           ImportResult* result) {
  if (recipes.empty()) return Status::Ok();
  StoredKernelHashes stored;
  if (Status s = ReadStoredKernelHashes(target, {}, &stored); !s.ok()) return s;
  for (const GraphRecipeRecord& r : recipes) {
    if (!Carried(r, env_ids, stored)) {
      ++result->recipes_skipped;
      continue;
    }
    bool added = false;
    if (Status s = InsertRecipe(target, env_ids.at(r.environment_id), r, now, &added); !s.ok()) {
      return s;
    }
    ++(added ? result->recipes_added : result->recipes_existing);
  }
  return Status::Ok();
}

}  // namespace ember
