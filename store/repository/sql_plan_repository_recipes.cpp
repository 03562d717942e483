// SqlPlanRepository's graph recipes (Note [Graph recipes], store/persistent_recipes.h): a
// workload's recipes read in one query, each row's checksum verified (Note [Row checksums]) and
// its body judged as the engine would use it (CheckGraphRecipe); one recipe upserted, the last
// writer's kept.
#include <fmt/format.h>

#include "engine/core/clock.h"
#include "engine/core/printable.h"
#include "engine/runtime/graph_tape.h"
#include "store/codec/row_checksum.h"
#include "store/repository/column_encoding.h"
#include "store/repository/sql_plan_repository.h"

namespace ember {

Status PlanRepository::CheckGraphRecipe(std::string_view workload, const GraphRecipe& recipe) {
  const auto refuse = [&](std::string_view why) {
    return Status::InvalidArgument(fmt::format("graph recipe {:016x} of workload '{}': {}",
                                               recipe.key, PrintableBounded(workload, 64), why));
  };
  if (!IsValidUtf8(workload) || workload.find('\0') != std::string_view::npos) {
    return refuse("the workload name must be UTF-8 text without NUL");
  }
  if (recipe.body.size() > GraphRecipeStore::kMaxBodyBytes) {
    return refuse(fmt::format("the body has {} bytes, more than {}", recipe.body.size(),
                              GraphRecipeStore::kMaxBodyBytes));
  }
  std::string why;
  const std::optional<GraphTape> tape = DecodeTape(recipe.body, &why);
  if (!tape.has_value()) return refuse(fmt::format("the body is not a tape ({})", why));
  if (TapeHash(*tape) != recipe.key) {
    return refuse(fmt::format("the key is not the tape's hash ({:016x})", TapeHash(*tape)));
  }
  if (TapeKernels(*tape) != recipe.kernels) {
    return refuse("the kernel list is not the kernels the tape launches");
  }
  return Status::Ok();
}

Status SqlPlanRepository::LoadGraphRecipes(EnvironmentRowId environment, std::string_view workload,
                                           LoadedGraphRecipes* out) {
  return sql().ReadStatement("loading graph recipes", [&] {
    *out = LoadedGraphRecipes();
    return sql().Query(
        "SELECT key, body, kernels, checksum FROM graph_recipes WHERE environment_id = ?1 AND "
        "workload = ?2 ORDER BY key",
        {SqlValue(int64_t{environment}), SqlValue(std::string(workload))}, "loading graph recipes",
        [&](const SqlRow& row) {
          GraphRecipe recipe{.key = FromColumn(row.Int64(0)), .body = row.Text(1)};
          std::optional<std::vector<uint64_t>> kernels = RecipeKernelsFromColumn(row.Text(2));
          if (!kernels.has_value() ||
              GraphRecipeChecksum(recipe.key, recipe.body, *kernels) != FromColumn(row.Int64(3))) {
            ++out->damaged;
            return;
          }
          recipe.kernels = std::move(*kernels);
          if (!CheckGraphRecipe(workload, recipe).ok()) {
            ++out->refused;
            return;
          }
          out->recipes.push_back(std::move(recipe));
        });
  });
}

Status SqlPlanRepository::PutGraphRecipe(EnvironmentRowId environment, std::string_view workload,
                                         const GraphRecipe& recipe) {
  if (Status s = CheckGraphRecipe(workload, recipe); !s.ok()) return s;
  if (Status s = CheckWritable("storing a graph recipe"); !s.ok()) return s;
  const int64_t checksum = ToColumn(GraphRecipeChecksum(recipe.key, recipe.body, recipe.kernels));
  return sql().WriteStatement("storing a graph recipe", [&] {
    return sql().Exec(
        "INSERT INTO graph_recipes (environment_id, workload, key, body, kernels, checksum, "
        "updated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (environment_id, workload, "
        "key) DO UPDATE SET body = excluded.body, kernels = excluded.kernels, checksum = "
        "excluded.checksum, updated = excluded.updated",
        {SqlValue(int64_t{environment}), SqlValue(std::string(workload)),
         SqlValue(ToColumn(recipe.key)), SqlValue(recipe.body),
         SqlValue(RecipeKernelsColumn(recipe.kernels)), SqlValue(checksum),
         SqlValue(NowUnixMillis())},
        "storing a graph recipe");
  });
}

}  // namespace ember
