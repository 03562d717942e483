// PersistentRecipes: the plan database's GraphRecipeStore (engine/runtime/graph_recipe_store.h),
// owned by PersistentPlans and handed to a backend that captures launch windows as CUDA graphs
// (PlanBacking::AttachRecipes).
//
// Note [Graph recipes]
//   * A recipe is the tape of a launch window that repeated (engine/runtime/graph_tape.h): its
//     launches' kernels and geometry, never their arguments. A process that meets a window
//     whose tape a recipe holds captures it at its first occurrence instead of after it has
//     repeated; that is all a recipe can do. Recipes are kept per environment and workload
//     (table graph_recipes, migrations/0006_graph_recipes.sql): another device or library
//     version is another environment, and another program's windows are not this one's.
//   * Judged before use, wherever it comes from (PlanRepository::CheckGraphRecipe): a body of at
//     most kMaxBodyBytes that DecodeTape reads, a key that is its TapeHash and a kernel list
//     that is its TapeKernels. A database row must also pass its checksum (Note [Row
//     checksums]). What fails is skipped and counted (said once at `basic`), never returned;
//     the backend then captures that window after it repeats, as without a recipe. A forged
//     recipe that passes costs at most one capture of a tape the process runs anyway: the
//     backend compares it in full with a tape it has just run eagerly and sets every argument
//     itself (docs/PLAN_DATABASE.md, "Graph recipes").
//   * LoadAll answers from the shared segment first (Note [Shared recipes], store/shm/
//     shared_plan_tier.h: what siblings on this host remembered, no database round trip), then
//     reads the database once in the process's life, in one query: the backend calls it once,
//     when it takes the store. A recipe of the same key from both is the same tape (the key is
//     its hash, and the check compares it with the body); the segment's copy is kept.
//   * Remember keeps the recipe in memory, publishes it to the segment at once and gives it to
//     the background writer (Note [Write-behind], store/repository/plan_writer.h): the backend
//     never waits for the database. A recipe equal to one held writes nothing; one the check
//     refuses is not remembered at all (said once at `basic`). On a database that cannot be
//     written, recipes stay in memory and the segment.
//   * Gone with their kernels: `ember-plans gc` removes the recipes that name a kernel the
//     environment no longer stores (kernels go with the plans that used them), and `verify`
//     names them; until then a process that loads such a recipe only captures earlier a window
//     it compiles the kernel for anyway.
//
// Threading: called under the device server's lock, one call at a time, like PersistentPlans.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/runtime/graph_recipe_store.h"
#include "store/database_reader.h"
#include "store/repository/plan_writer.h"
#include "store/shared_tier_client.h"

namespace ember {

class PersistentRecipes final : public GraphRecipeStore {
 public:
  // Reads through `db` (its environment), shares through `shm`, writes through `writer`; all
  // three belong to the PersistentPlans that owns this store and outlive it. `workload`: the
  // workload whose recipes these are.
  PersistentRecipes(DatabaseReader& db, SharedTierClient& shm, PlanWriter& writer,
                    std::string workload);

  std::vector<GraphRecipe> LoadAll() override;
  void Remember(const GraphRecipe& recipe) override;

  // For tests and logs: the database reads made, and the rows and entries skipped by the
  // checksum (damaged) and by the check (refused).
  uint64_t reads() const { return reads_; }
  size_t damaged() const { return damaged_; }
  size_t refused() const { return refused_; }

 private:
  // Adds `recipe` to memory unless a recipe of its key is held; false when it was held.
  bool Hold(GraphRecipe recipe);
  // Reads the workload's recipes from the database into memory; false when no read happened
  // (the database is not read now).
  bool ReadDatabase();
  void SayRefused(const Status& status);

  DatabaseReader& db_;
  SharedTierClient& shm_;
  PlanWriter& writer_;
  const std::string workload_;
  std::unordered_map<uint64_t, GraphRecipe> recipes_;  // by key
  bool read_ = false;                                  // the database's one read happened
  uint64_t reads_ = 0;
  size_t damaged_ = 0;
  size_t refused_ = 0;
  bool skipped_said_ = false;
  bool failure_said_ = false;
  bool refusal_said_ = false;
};

}  // namespace ember
