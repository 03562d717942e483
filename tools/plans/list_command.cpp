// ember-plans ls: one line per plan, with how many compiled kernels it uses.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "engine/core/clock.h"
#include "engine/ir/operation_ir.h"
#include "store/admin/kernel_inventory.h"
#include "store/admin/plan_inventory.h"
#include "store/repository/plan_row_check.h"
#include "tools/plans/commands.h"
#include "tools/plans/human_units.h"
#include "tools/plans/json_output.h"
#include "tools/plans/plan_description.h"
#include "tools/plans/text_table.h"

namespace ember::plans {

namespace {

struct Listed {
  PlanRecord record;
  bool decoded = false;
  std::string problem;  // when not decoded
  std::string first_op;
  std::string strategy;
  uint64_t best_score = 0;
};

Listed Describe(PlanRecord record) {
  Listed l;
  ExecutionPlan plan;
  if (Status s = CheckPlanRecord(record, &plan); !s.ok()) {
    l.problem = s.message();
  } else {
    l.decoded = true;
    l.first_op = OpName(plan.operations.front());
    l.strategy = StrategySummary(plan);
    l.best_score = BestScore(plan);
  }
  l.record = std::move(record);
  return l;
}

}  // namespace

int RunList(const GlobalOptions& global, const ListOptions& options) {
  const std::vector<std::string> sorts = {"id", "hits", "recent", "size", "score"};
  if (std::find(sorts.begin(), sorts.end(), options.sort) == sorts.end()) {
    std::cerr << "ember-plans: --sort must be one of id, hits, recent, size, score\n";
    return kExitUsage;
  }
  std::unique_ptr<PlanRepository> db;
  if (Status s = OpenRepositoryForReading(global, &db); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  PlanFilter filter{.workload = options.workload, .status = "ok"};
  if (options.environment.has_value()) {
    EnvironmentRowId env = 0;
    if (Status s = ResolveEnvironment(db->sql(), *options.environment, &env); !s.ok()) {
      return ReportFailure(s);
    }
    filter.environment = env;
  }
  std::vector<PlanRecord> records;
  if (Status s = ListPlans(db->sql(), filter, &records); !s.ok()) return ReportFailure(s);
  std::map<PlanRowId, int64_t> kernels;
  if (Status s = CountKernelsPerPlan(db->sql(), &kernels); !s.ok()) return ReportFailure(s);
  std::vector<Listed> plans;
  for (PlanRecord& r : records) plans.push_back(Describe(std::move(r)));
  auto kernels_of = [&kernels](const PlanRecord& r) {
    const auto it = kernels.find(r.id);
    return it == kernels.end() ? int64_t{0} : it->second;
  };

  auto by = [&](auto key) {
    std::stable_sort(plans.begin(), plans.end(),
                     [&](const Listed& a, const Listed& b) { return key(a) > key(b); });
  };
  if (options.sort == "hits") by([](const Listed& l) { return l.record.hits; });
  if (options.sort == "recent") {
    by([](const Listed& l) { return l.record.last_hit.value_or(l.record.created); });
  }
  if (options.sort == "size") {
    by([](const Listed& l) { return l.record.ops_bytes + l.record.plan_bytes; });
  }
  if (options.sort == "score") by([](const Listed& l) { return l.best_score; });
  if (options.limit.has_value() && static_cast<size_t>(*options.limit) < plans.size()) {
    plans.resize(static_cast<size_t>(*options.limit));
  }

  if (global.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const Listed& l : plans) {
      const PlanRecord& r = l.record;
      nlohmann::ordered_json plan = {
          {"id", r.id},
          {"environment_id", r.environment_id},
          {"environment", r.environment},
          {"first_op", l.decoded ? nlohmann::ordered_json(l.first_op) : nullptr},
          {"num_ops", r.num_ops},
          {"strategy", l.decoded ? nlohmann::ordered_json(l.strategy) : nullptr},
          {"best_score", l.best_score},
          {"hits", r.hits},
          {"last_hit", r.last_hit.has_value() ? nlohmann::ordered_json(*r.last_hit) : nullptr},
          {"created", r.created},
          {"bytes", r.ops_bytes + r.plan_bytes},
          {"explore_ms", r.explore_ms},
          {"origin", r.origin},
          {"problem", l.decoded ? nullptr : nlohmann::ordered_json(l.problem)},
          {"kernels", kernels_of(r)},
      };
      out.push_back(std::move(plan));
    }
    std::cout << JsonText(out) << "\n";
    return kExitOk;
  }
  if (plans.empty()) {
    std::cout << "no plans\n";
    return kExitOk;
  }
  const int64_t now = NowUnixMillis();
  // The kernels column only where there are kernels (a CPU database has none): the table has
  // 100 columns to share, and the origin would pay for a column of zeros.
  const bool with_kernels = !kernels.empty();
  std::vector<Column> columns = {{"id", true},    {"first op", false, true, 10},
                                 {"ops", true},   {"strategy", false, true, 12},
                                 {"score", true}, {"hits", true}};
  if (with_kernels) columns.push_back({"kernels", true});
  columns.push_back({"last hit", false});
  columns.push_back({"origin", false, true, 8, /*shrink_rank=*/1});
  TextTable table(std::move(columns));
  for (const Listed& l : plans) {
    const PlanRecord& r = l.record;
    std::vector<Cell> row = {
        std::to_string(r.id),
        l.decoded ? Cell(l.first_op) : Cell("?", Style::kBad),
        std::to_string(r.num_ops),
        l.decoded ? Cell(l.strategy) : Cell("damaged: " + l.problem, Style::kBad),
        std::to_string(l.best_score),
        std::to_string(r.hits)};
    if (with_kernels) row.emplace_back(std::to_string(kernels_of(r)));
    row.emplace_back(FormatAge(r.last_hit, now));
    row.emplace_back(r.origin);
    table.AddRow(std::move(row));
  }
  std::cout << table.Render();
  return kExitOk;
}

}  // namespace ember::plans
