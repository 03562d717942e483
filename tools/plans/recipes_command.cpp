// ember-plans recipes: the graph recipes kept with the plans (Note [Graph recipes],
// store/persistent_recipes.h), per environment and workload: key, launches, kernels, when last
// written, and whether the row is damaged or not a tape the engine uses (it then ignores it).
// With --key, each recipe of that key as its tape, one launch per line.
#include <fmt/format.h>

#include <charconv>
#include <iostream>

#include <nlohmann/json.hpp>

#include "engine/core/clock.h"
#include "engine/core/printable.h"
#include "engine/runtime/graph_tape.h"
#include "store/admin/plan_inventory.h"
#include "store/admin/recipe_inventory.h"
#include "tools/plans/commands.h"
#include "tools/plans/human_units.h"
#include "tools/plans/json_output.h"
#include "tools/plans/text_table.h"

namespace ember::plans {
namespace {

// A key as the list prints it: 16 hex digits, "0x" allowed before them.
std::optional<uint64_t> ParseKey(std::string_view text) {
  if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
  uint64_t key = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), key, 16);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return key;
}

std::string Hex(uint64_t value) { return fmt::format("{:016x}", value); }

// What the engine would make of the row: "" when it uses it, else why not.
std::string Unusable(const GraphRecipeRecord& r) {
  if (!r.checksum_ok) return "damaged (checksum mismatch or an unreadable kernel list)";
  const Status s = PlanRepository::CheckGraphRecipe(r.workload, r.recipe);
  return s.ok() ? "" : s.message();
}

nlohmann::ordered_json RecipeJson(const GraphRecipeRecord& r, bool with_launches) {
  nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
  for (const uint64_t k : r.recipe.kernels) kernels.push_back(Hex(k));
  const std::optional<GraphTape> tape = DecodeTape(r.recipe.body);
  nlohmann::ordered_json out = {{"environment_id", r.environment_id},
                                {"environment", r.environment},
                                {"workload", r.workload},
                                {"key", Hex(r.recipe.key)},
                                {"launches", nullptr},
                                {"kernels", kernels},
                                {"updated", r.updated},
                                {"damaged", !r.checksum_ok},
                                {"problem", Unusable(r)}};
  if (tape.has_value()) out["launches"] = tape->launches.size();
  if (with_launches && tape.has_value()) {
    nlohmann::ordered_json launches = nlohmann::ordered_json::array();
    for (const TapeLaunch& l : tape->launches) {
      launches.push_back({{"kernel", Hex(l.kernel)},
                          {"grid", l.grid},
                          {"threads", l.threads},
                          {"shared_bytes", l.shared_bytes},
                          {"arg_words", l.arg_words}});
    }
    out["tape"] = launches;
  }
  return out;
}

// One recipe as its tape, one launch per line.
void PrintTape(const GraphRecipeRecord& r, int64_t now) {
  std::cout << fmt::format("recipe {} of workload '{}', environment {} ({}), updated {}\n",
                           Hex(r.recipe.key), ShownText(r.workload), r.environment_id,
                           ShownText(r.environment), FormatAge(r.updated, now));
  if (const std::string why = Unusable(r); !why.empty()) {
    std::cout << Styled("not used by the engine: " + PrintableLines(why), Style::kBad) << "\n";
  }
  std::string why;
  const std::optional<GraphTape> tape = DecodeTape(r.recipe.body, &why);
  if (!tape.has_value()) return;
  TextTable table({{"#", true},
                   {"kernel", false},
                   {"grid", true},
                   {"threads", true},
                   {"shared", true},
                   {"args", true}});
  for (size_t i = 0; i < tape->launches.size(); ++i) {
    const TapeLaunch& l = tape->launches[i];
    table.AddRow({std::to_string(i), Hex(l.kernel), std::to_string(l.grid),
                  std::to_string(l.threads), FormatBytes(l.shared_bytes),
                  std::to_string(l.arg_words)});
  }
  std::cout << table.Render();
}

}  // namespace

int RunRecipes(const GlobalOptions& global, const RecipesOptions& options) {
  std::optional<uint64_t> key;
  if (options.key.has_value()) {
    key = ParseKey(*options.key);
    if (!key.has_value()) {
      std::cerr << "ember-plans: recipes --key: '" << ShownText(*options.key)
                << "' is not a recipe key (16 hex digits, as `ember-plans recipes` lists them)\n";
      return kExitUsage;
    }
  }
  std::unique_ptr<PlanRepository> db;
  if (Status s = OpenRepositoryForReading(global, &db); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  RecipeFilter filter{.workload = options.workload, .key = key};
  if (options.environment.has_value()) {
    EnvironmentRowId id = 0;
    if (Status s = ResolveEnvironment(db->sql(), *options.environment, &id); !s.ok()) {
      return ReportFailure(s);
    }
    filter.environment = id;
  }
  // A file of an older schema (opened read-only, not migrated) has no recipes to list.
  std::vector<GraphRecipeRecord> recipes;
  if (db->schema_version() >= kGraphRecipesSchema) {
    if (Status s = ListGraphRecipes(db->sql(), filter, &recipes); !s.ok()) return ReportFailure(s);
  }
  if (global.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const GraphRecipeRecord& r : recipes) out.push_back(RecipeJson(r, key.has_value()));
    std::cout << JsonText(out) << "\n";
    // As in text: a key that names no recipe is a problem.
    return key.has_value() && recipes.empty() ? kExitProblems : kExitOk;
  }
  if (recipes.empty()) {
    std::cout << (key.has_value() ? "no graph recipe with that key\n" : "no graph recipes\n");
    return key.has_value() ? kExitProblems : kExitOk;
  }
  const int64_t now = NowUnixMillis();
  if (key.has_value()) {
    for (size_t i = 0; i < recipes.size(); ++i) {
      if (i > 0) std::cout << "\n";
      PrintTape(recipes[i], now);
    }
    return kExitOk;
  }
  TextTable table({{"env", true},
                   {"workload", false, true, 8},
                   {"key", false},
                   {"launches", true},
                   {"kernels", true},
                   {"updated", false}});
  for (const GraphRecipeRecord& r : recipes) {
    const std::optional<GraphTape> tape = DecodeTape(r.recipe.body);
    const bool usable = Unusable(r).empty();
    table.AddRow({std::to_string(r.environment_id), r.workload,
                  usable ? Cell(Hex(r.recipe.key))
                         : Cell((r.checksum_ok ? "unusable: " : "damaged: ") + Hex(r.recipe.key),
                                Style::kBad),
                  tape.has_value() ? std::to_string(tape->launches.size()) : "?",
                  std::to_string(r.recipe.kernels.size()), FormatAge(r.updated, now)});
  }
  std::cout << table.Render();
  return kExitOk;
}

}  // namespace ember::plans
