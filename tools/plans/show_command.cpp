// ember-plans show ID: a plan's relative ops, triggers, and strategy as the engine's `fusion
// trace` table, plus the fused trace of each optimization (the engine's printers,
// engine/stream/trace.h and engine/trace/fuse_trace.h), and the compiled kernels it uses
// (kernel_listing.h; with --source, their CUDA source).
#include <fmt/format.h>

#include <iostream>

#include <nlohmann/json.hpp>

#include "engine/core/printable.h"
#include "engine/ir/format.h"
#include "engine/stream/trace.h"
#include "store/admin/kernel_inventory.h"
#include "store/admin/plan_inventory.h"
#include "store/repository/column_encoding.h"
#include "store/repository/plan_row_check.h"
#include "tools/plans/commands.h"
#include "tools/plans/human_units.h"
#include "tools/plans/json_output.h"
#include "tools/plans/kernel_listing.h"
#include "tools/plans/plan_description.h"
#include "tools/plans/terminal_style.h"

namespace ember::plans {

namespace {

nlohmann::ordered_json OpsJson(std::span<const OperationIr> ops) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const OperationIr& op : ops) out.push_back(FormatOp(op));
  return out;
}

nlohmann::ordered_json PlanJson(const PlanRecord& r, const ExecutionPlan* plan,
                                const std::string& problem) {
  nlohmann::ordered_json out = {
      {"id", r.id},
      {"environment_id", r.environment_id},
      {"environment", r.environment},
      {"status", r.status},
      {"quarantine_reason",
       r.quarantine_reason.empty() ? nullptr : nlohmann::ordered_json(r.quarantine_reason)},
      {"origin", r.origin},
      {"first_op_hash", HexHash(FromColumn(r.first_op_hash))},
      {"plan_key", Hex(r.plan_key)},
      {"num_ops", r.num_ops},
      {"ops_bytes", r.ops_bytes},
      {"plan_bytes", r.plan_bytes},
      {"explore_ms", r.explore_ms},
      {"created", r.created},
      {"last_hit", r.last_hit.has_value() ? nlohmann::ordered_json(*r.last_hit) : nullptr},
      {"hits", r.hits},
      {"problem", plan != nullptr ? nullptr : nlohmann::ordered_json(problem)},
  };
  if (plan == nullptr) return out;
  out["ops"] = OpsJson(plan->operations);
  nlohmann::ordered_json triggers = nlohmann::ordered_json::array();
  for (const ExecutionTrigger& t : plan->triggers) {
    triggers.push_back(
        {{"kind", TriggerKindName(static_cast<int>(t.kind))}, {"ops", OpsJson(t.operations)}});
  }
  out["triggers"] = std::move(triggers);
  out["strategy"] = StrategySummary(*plan);
  nlohmann::ordered_json blocks = nlohmann::ordered_json::array();
  for (const PlanLeaf& leaf : FlattenLeaves(plan->optimization.strategy)) {
    blocks.push_back(
        {{"kind", leaf.fused ? "fused" : "unfused"},
         {"name", leaf.fused ? nlohmann::ordered_json(leaf.name) : nullptr},
         {"score", leaf.score},
         {"positions", leaf.positions},
         {"fused_trace",
          leaf.trace != nullptr ? nlohmann::ordered_json(FormatFuseTrace(*leaf.trace)) : nullptr}});
  }
  out["blocks"] = std::move(blocks);
  out["fusion_trace"] = FormatExecutionTable(plan->optimization.strategy, plan->operations);
  return out;
}

void PrintHuman(const PlanRecord& r, const ExecutionPlan* plan, const std::string& problem) {
  std::cout << Styled(fmt::format("plan {}", r.id), Style::kBold) << "  environment "
            << r.environment_id << " (" << ShownText(r.environment) << ")\n";
  // Every text column of a row is another writer's: shown escaped.
  std::cout << "status "
            << Styled(ShownText(r.status), r.status == "ok" ? Style::kGood : Style::kWarn);
  if (!r.quarantine_reason.empty()) std::cout << " (" << ShownText(r.quarantine_reason) << ")";
  std::cout << fmt::format(", origin {}, {} op(s), {} + {} bytes\n", ShownText(r.origin), r.num_ops,
                           r.ops_bytes, r.plan_bytes);
  std::cout << fmt::format(
      "explored in {:.3f} ms; {} hit(s), last {}; created {} UTC\n", r.explore_ms, r.hits,
      r.last_hit.has_value() ? FormatUtc(*r.last_hit) + " UTC" : "never", FormatUtc(r.created));
  std::cout << "first op hash " << HexHash(FromColumn(r.first_op_hash)) << ", plan key "
            << Hex(r.plan_key) << "\n";
  if (plan == nullptr) {
    std::cout << "\n" << Styled("damaged: " + PrintableLines(problem), Style::kBad) << "\n";
    return;
  }
  std::cout << "\n" << Styled("relative ops", Style::kBold) << "\n";
  for (size_t i = 0; i < plan->operations.size(); ++i) {
    std::cout << fmt::format("  {:>3}  {}\n", i, FormatOp(plan->operations[i]));
  }
  std::cout << "\n"
            << Styled(fmt::format("triggers ({})", plan->triggers.size()), Style::kBold) << "\n";
  for (size_t i = 0; i < plan->triggers.size(); ++i) {
    const ExecutionTrigger& t = plan->triggers[i];
    std::cout << fmt::format("  {:>3}  {}\n", i, TriggerKindName(static_cast<int>(t.kind)));
    for (const OperationIr& op : t.operations) std::cout << "         " << FormatOp(op) << "\n";
  }
  std::cout << "\n" << Styled("strategy: " + StrategySummary(*plan), Style::kBold) << "\n";
  std::cout << FormatExecutionTable(plan->optimization.strategy, plan->operations) << "\n";
  const std::vector<PlanLeaf> leaves = FlattenLeaves(plan->optimization.strategy);
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (leaves[i].trace == nullptr) continue;
    std::cout << "\n"
              << Styled(fmt::format("fused trace of block {} ({}, score={})", i, leaves[i].name,
                                    leaves[i].score),
                        Style::kBold)
              << "\n"
              << FormatFuseTrace(*leaves[i].trace);
    if (!FormatFuseTrace(*leaves[i].trace).ends_with('\n')) std::cout << "\n";
  }
}

}  // namespace

int RunShow(const GlobalOptions& global, int64_t plan_id, bool with_source) {
  std::unique_ptr<PlanRepository> db;
  if (Status s = OpenRepositoryForReading(global, &db); !s.ok()) {
    return ReportOpenFailure(global, s);
  }
  PlanRecord record;
  if (Status s = ReadPlan(db->sql(), plan_id, &record); !s.ok()) return ReportFailure(s);
  std::vector<KernelRecord> kernels;
  const KernelFilter filter{.plan = plan_id, .sources = true, .binaries = true};
  if (Status s = ListKernels(db->sql(), filter, &kernels); !s.ok()) return ReportFailure(s);
  ExecutionPlan plan;
  const Status checked = CheckPlanRecord(record, &plan);
  const ExecutionPlan* decoded = checked.ok() ? &plan : nullptr;
  if (global.json) {
    nlohmann::ordered_json out = PlanJson(record, decoded, checked.message());
    out["kernels"] = KernelsJson(kernels, with_source);
    std::cout << JsonText(out) << "\n";
  } else {
    PrintHuman(record, decoded, checked.message());
    std::cout << "\n" << FormatKernelTable(kernels);
    if (with_source) std::cout << FormatKernelSources(kernels);
  }
  return checked.ok() ? kExitOk : kExitProblems;
}

}  // namespace ember::plans
