// Grouped misses and their advice (miss_report.h).
#include "tools/plans/miss_report.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/core/printable.h"

namespace ember::plans {

namespace {

// "32, 48, 57, …": the first few values.
std::string ValuesText(const std::vector<int64_t>& values) {
  constexpr size_t kShown = 8;
  std::vector<int64_t> shown(
      values.begin(), values.begin() + static_cast<ptrdiff_t>(std::min(values.size(), kShown)));
  return fmt::format("{}{}", fmt::join(shown, ", "), values.size() > kShown ? ", …" : "");
}

// "input 0 dim 1" from a shape miss's summary ("...: input 0 shape [1,2] vs [1,1] ...: dim 1
// differs"); empty when the text has another form.
std::string ShapeWhere(const std::string& detail) {
  const size_t shape = detail.find(" shape [");
  const size_t dim = detail.rfind(": dim ");
  if (shape == std::string::npos || dim == std::string::npos) return "";
  const size_t role = detail.rfind(": ", shape);
  if (role == std::string::npos) return "";
  const std::string who = detail.substr(role + 2, shape - role - 2);
  const size_t end = detail.find(' ', dim + 6);
  return fmt::format("{} {}", who, detail.substr(dim + 2, end - dim - 2));
}

// Several distinct values, most of the misses bringing a new one (or more than the row keeps):
// a dim that changes every step rather than a few shapes seen again.
bool ChangesEveryStep(const MissGroup& g) {
  const auto k = static_cast<int64_t>(g.values.size());
  return k >= 3 && (2 * k >= g.count || g.values.size() >= WorkloadMiss::kMaxMissValues);
}

std::string BucketingAdvice(const MissGroup& g, const std::string& what) {
  const std::string seen =
      fmt::format("{} values in {} misses: {}", g.values.size(), g.count, ValuesText(g.values));
  if (ChangesEveryStep(g)) {
    return fmt::format(
        "{} changes every step ({}); consider bucketing lengths (pad to a few fixed sizes) so "
        "that a few plans serve every step",
        what, seen);
  }
  return fmt::format(
      "{} takes several values ({}); each is a plan of its own, explored once; bucketing "
      "lengths (pad to a few fixed sizes) would make fewer",
      what, seen);
}

}  // namespace

int64_t MissReport::total() const {
  int64_t n = 0;
  for (const MissGroup& g : groups) n += g.count;
  return n;
}

std::map<std::string, int64_t> MissReport::by_cause() const {
  std::map<std::string, int64_t> out;
  for (const MissGroup& g : groups) out[g.cause] += g.count;
  return out;
}

MissGroup FromWorkloadMiss(const WorkloadMiss& miss) {
  return MissGroup{.cause = miss.cause,
                   .op_position = miss.op_position,
                   .op_name = miss.op_name,
                   .nearest_plan = miss.nearest_plan,
                   .first_detail = miss.first_detail,
                   .last_detail = miss.detail,
                   .values = miss.values,
                   .count = miss.count,
                   .first_seen = miss.first_seen,
                   .last_seen = miss.last_seen};
}

std::string MissAdvice(const MissGroup& g) {
  const std::string& c = g.cause;
  if (c == "shape") {
    if (g.values.size() >= 3) {
      const std::string where = ShapeWhere(g.last_detail);
      return BucketingAdvice(g, where.empty()
                                    ? "the shape id of a dim"
                                    : fmt::format("the shape id of {} (the sequence dim?)", where));
    }
    return "another shape: plans are kept per relative shape (64×32 is not 64×64), so this one is "
           "explored once and stored; expected when new shapes are rare";
  }
  if (c == "attribute") {
    if (g.values.size() >= 3) return BucketingAdvice(g, "the shape id of the sequence dim");
    return "an attribute of the op differs (an axis, a Cat's arity, a slice's rank): another "
           "program, explored once and stored";
  }
  if (c == "op_kind") {
    return "another op at this position: when a scalar became a tensor (x * 2.0 vs x * t) or "
           "back, pass it the same way every step; otherwise the program changed";
  }
  if (c == "dtype") {
    return "a dtype differs: plans are kept per dtype; cast where the data enters to keep one";
  }
  if (c == "status") {
    return "a tensor is kept alive here and not in the stored plan (ReadOnly vs ReadWrite), or "
           "the reverse: drop references the same way every step (std::move what you no longer "
           "need)";
  }
  if (c == "data_flow") {
    return "the ops connect differently (an operand is another tensor): another program";
  }
  if (c == "op_count") {
    return "the segment ends elsewhere than the stored plan: reading a value or Sync() at "
           "different points cuts segments differently; sync at the same points every step";
  }
  if (c == "trigger") {
    return "the plan's ops matched but what followed them matched none of its triggers: the "
           "new trigger is stored after this exploration, so it should not repeat";
  }
  if (c == "environment") {
    return "plans are kept per environment (max_blocks, fusers, device): run with the "
           "settings that stored it, or let this environment explore its own";
  }
  if (c == "no_candidate") {
    return "a first sighting: nothing stored starts with this op; explored once and stored";
  }
  return "unknown cause (a newer engine's?)";
}

std::string RenderMissReports(const std::vector<MissReport>& reports, size_t limit) {
  std::string out;
  if (reports.empty()) return "no misses recorded\n";
  for (const MissReport& r : reports) {
    std::vector<std::string> causes;
    const std::map<std::string, int64_t> counts = r.by_cause();
    std::vector<std::pair<std::string, int64_t>> by_cause(counts.begin(), counts.end());
    std::stable_sort(by_cause.begin(), by_cause.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [cause, n] : by_cause) causes.push_back(fmt::format("{} {}", cause, n));
    const std::string env =
        r.environment_id >= 0 ? fmt::format(" (environment {})", r.environment_id) : "";
    if (r.groups.empty()) {
      out += fmt::format("{}{}: no misses recorded\n", ShownText(r.name), env);
      continue;
    }
    out += fmt::format("{}{}: {} misses in {} patterns — {}\n", ShownText(r.name), env, r.total(),
                       r.groups.size(), ShownText(fmt::format("{}", fmt::join(causes, ", "))));
    for (size_t i = 0; i < r.groups.size() && i < limit; ++i) {
      const MissGroup& g = r.groups[i];
      // Miss rows are written by every host of a shared database, log lines by anyone.
      out += fmt::format("  {}. {}× {} at op {}{}\n", i + 1, g.count, ShownText(g.cause),
                         g.op_position,
                         g.op_name.empty() ? "" : fmt::format(" ({})", ShownText(g.op_name)));
      out += fmt::format("     latest: {}\n", ShownText(g.last_detail));
      if (g.first_detail != g.last_detail) {
        out += fmt::format("     first:  {}\n", ShownText(g.first_detail));
      }
      if (!g.values.empty()) out += fmt::format("     values: {}\n", ValuesText(g.values));
      out += fmt::format("     advice: {}\n", ShownText(MissAdvice(g)));
    }
    if (r.groups.size() > limit) {
      out += fmt::format("  … {} more patterns (--limit)\n", r.groups.size() - limit);
    }
  }
  return out;
}

nlohmann::ordered_json MissReportsJson(const std::vector<MissReport>& reports,
                                       const std::string& source, size_t limit) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const MissReport& r : reports) {
    nlohmann::ordered_json groups = nlohmann::ordered_json::array();
    for (size_t i = 0; i < r.groups.size() && i < limit; ++i) {
      const MissGroup& g = r.groups[i];
      groups.push_back(
          {{"count", g.count},
           {"cause", g.cause},
           {"op", g.op_position},
           {"op_name", g.op_name},
           {"nearest_plan", g.nearest_plan},
           {"first_detail", g.first_detail},
           {"latest_detail", g.last_detail},
           {"values", g.values},
           {"first_seen", g.first_seen > 0 ? nlohmann::ordered_json(g.first_seen) : nullptr},
           {"last_seen", g.last_seen > 0 ? nlohmann::ordered_json(g.last_seen) : nullptr},
           {"advice", MissAdvice(g)}});
    }
    nlohmann::ordered_json by_cause = nlohmann::ordered_json::object();
    for (const auto& [cause, n] : r.by_cause()) by_cause[cause] = n;
    list.push_back({{"name", r.name},
                    {"environment_id",
                     r.environment_id >= 0 ? nlohmann::ordered_json(r.environment_id) : nullptr},
                    {"misses", r.total()},
                    {"patterns", r.groups.size()},
                    {"by_cause", by_cause},
                    {"groups", groups}});
  }
  return {{"source", source}, {"workloads", list}};
}

}  // namespace ember::plans
