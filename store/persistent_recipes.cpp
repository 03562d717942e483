#include "store/persistent_recipes.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "engine/core/log.h"

namespace ember {

PersistentRecipes::PersistentRecipes(DatabaseReader& db, SharedTierClient& shm, PlanWriter& writer,
                                     std::string workload)
    : db_(db), shm_(shm), writer_(writer), workload_(std::move(workload)) {}

bool PersistentRecipes::Hold(GraphRecipe recipe) {
  const uint64_t key = recipe.key;
  return recipes_.try_emplace(key, std::move(recipe)).second;
}

bool PersistentRecipes::ReadDatabase() {
  PlanRepository* reader = db_.Current();
  if (reader == nullptr) return false;  // paused, stopped or closed: asked again later
  ++reads_;
  LoadedGraphRecipes loaded;
  if (Status s = reader->LoadGraphRecipes(db_.environment(), workload_, &loaded); !s.ok()) {
    if (!failure_said_) {
      failure_said_ = true;
      LogFusion(LogLevel::kBasic, [&] {
        return fmt::format(
            "[store] reading graph recipes failed ({}); windows are captured once they repeat",
            s.ToString());
      });
    }
    return true;
  }
  damaged_ += loaded.damaged;
  refused_ += loaded.refused;
  for (GraphRecipe& recipe : loaded.recipes) Hold(std::move(recipe));
  return true;
}

std::vector<GraphRecipe> PersistentRecipes::LoadAll() {
  // Judged inside the walk, so that a refused newest entry does not hide an older good copy.
  auto usable = [&](const GraphRecipe& recipe) {
    if (PlanRepository::CheckGraphRecipe(workload_, recipe).ok()) return true;
    ++refused_;
    return false;
  };
  for (GraphRecipe& recipe : shm_.LookupRecipes(workload_, usable)) Hold(std::move(recipe));
  if (!read_) read_ = ReadDatabase();
  if (damaged_ + refused_ > 0 && !skipped_said_) {
    skipped_said_ = true;
    LogFusion(LogLevel::kBasic, [&] {
      return fmt::format(
          "[store] {} graph recipe(s) of {} failed their checksum and {} are not tapes this "
          "build uses; ignored (those windows are captured once they repeat)",
          damaged_, db_.where(), refused_);
    });
  }
  std::vector<GraphRecipe> all;
  all.reserve(recipes_.size());
  for (const auto& [key, recipe] : recipes_) all.push_back(recipe);
  std::sort(all.begin(), all.end(),
            [](const GraphRecipe& a, const GraphRecipe& b) { return a.key < b.key; });
  return all;
}

void PersistentRecipes::SayRefused(const Status& status) {
  if (refusal_said_) return;
  refusal_said_ = true;
  LogFusion(LogLevel::kBasic,
            [&] { return fmt::format("[store] not remembered: {}", status.message()); });
}

void PersistentRecipes::Remember(const GraphRecipe& recipe) {
  if (Status s = PlanRepository::CheckGraphRecipe(workload_, recipe); !s.ok()) {
    return SayRefused(s);
  }
  auto [it, added] = recipes_.try_emplace(recipe.key, recipe);
  if (!added && it->second == recipe) return;
  it->second = recipe;
  shm_.PublishRecipe(workload_, recipe);
  writer_.Recipe({.workload = workload_, .recipe = recipe});
}

}  // namespace ember
