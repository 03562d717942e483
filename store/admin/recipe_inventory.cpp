#include "store/admin/recipe_inventory.h"

#include <fmt/format.h>

#include <algorithm>

#include "store/codec/row_checksum.h"
#include "store/repository/column_encoding.h"

namespace ember {

Status ReadGraphRecipes(SqlSession& sql, const RecipeFilter& filter,
                        std::vector<GraphRecipeRecord>* out) {
  out->clear();
  std::vector<SqlValue> args;
  std::vector<std::string> where;
  if (filter.environment.has_value()) {
    args.emplace_back(int64_t{*filter.environment});
    where.push_back(fmt::format("r.environment_id = ?{}", args.size()));
  }
  if (filter.workload.has_value()) {
    args.emplace_back(*filter.workload);
    where.push_back(fmt::format("r.workload = ?{}", args.size()));
  }
  if (filter.key.has_value()) {
    args.emplace_back(ToColumn(*filter.key));
    where.push_back(fmt::format("r.key = ?{}", args.size()));
  }
  std::string clause;
  for (const std::string& w : where) clause += (clause.empty() ? " WHERE " : " AND ") + w;
  Status s = sql.Query(
      fmt::format("SELECT r.environment_id, COALESCE(e.fingerprint, ''), r.workload, r.key, "
                  "r.body, r.kernels, r.checksum, r.updated FROM graph_recipes r LEFT JOIN "
                  "environments e ON e.id = r.environment_id{}",
                  clause),
      args, "listing graph recipes", [&](const SqlRow& row) {
        GraphRecipeRecord r{.environment_id = row.Int64(0),
                            .environment = row.Text(1),
                            .workload = row.Text(2),
                            .recipe = {.key = FromColumn(row.Int64(3)), .body = row.Text(4)},
                            .updated = row.Int64(7)};
        if (std::optional<std::vector<uint64_t>> kernels = RecipeKernelsFromColumn(row.Text(5))) {
          r.recipe.kernels = std::move(*kernels);
          r.checksum_ok = GraphRecipeChecksum(r.recipe.key, r.recipe.body, r.recipe.kernels) ==
                          FromColumn(row.Int64(6));
        }
        out->push_back(std::move(r));
      });
  // Sorted here: a server's collation may order workloads otherwise than a file's bytes.
  std::sort(out->begin(), out->end(), [](const GraphRecipeRecord& a, const GraphRecipeRecord& b) {
    if (a.environment_id != b.environment_id) return a.environment_id < b.environment_id;
    if (a.workload != b.workload) return a.workload < b.workload;
    return a.recipe.key < b.recipe.key;
  });
  return s;
}

Status ListGraphRecipes(SqlSession& sql, const RecipeFilter& filter,
                        std::vector<GraphRecipeRecord>* out) {
  return sql.ReadTransaction("listing graph recipes",
                             [&] { return ReadGraphRecipes(sql, filter, out); });
}

Status ReadStoredKernelHashes(SqlSession& sql, const std::set<int64_t>& except,
                              StoredKernelHashes* out) {
  out->clear();
  return sql.Query("SELECT id, environment_id, source_hash FROM kernels", {},
                   "listing stored kernels", [&](const SqlRow& row) {
                     if (except.contains(row.Int64(0))) return;
                     const std::vector<uint8_t> bytes = row.Blob(2);
                     if (bytes.size() != 8) return;  // no kernel a recipe can name
                     uint64_t hash = 0;
                     for (const uint8_t byte : bytes) hash = (hash << 8) | byte;
                     out->emplace(row.Int64(1), hash);
                   });
}

std::vector<uint64_t> MissingRecipeKernels(const GraphRecipeRecord& recipe,
                                           const StoredKernelHashes& stored) {
  std::vector<uint64_t> missing;
  for (const uint64_t kernel : recipe.recipe.kernels) {
    if (!stored.contains({recipe.environment_id, kernel})) missing.push_back(kernel);
  }
  return missing;
}

}  // namespace ember
