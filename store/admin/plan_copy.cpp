#include "store/admin/plan_copy.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>

#include "store/admin/bundle_kernel_check.h"
#include "store/admin/kernel_inventory.h"
#include "store/repository/column_encoding.h"
#include "store/repository/plan_row_check.h"
#include "store/sqlite/file_trust.h"

namespace ember {
namespace {

// The row as CheckPlanRecord reads it: derived columns from its contents, as they were stored.
PlanRecord RecordOf(const StoredPlan& plan, EnvironmentRowId environment) {
  PlanRecord record;
  record.id = plan.id;
  record.environment_id = environment;
  record.first_op_hash = ToColumn(plan.first_op_hash);
  record.plan_key = PlanKeyBytes(plan.plan_key);
  record.ops_blob = plan.ops_blob;
  record.plan_blob = plan.plan_blob;
  record.checksum = ToColumn(plan.checksum);
  record.ops_bytes = static_cast<int64_t>(plan.ops_blob.size());
  record.plan_bytes = static_cast<int64_t>(plan.plan_blob.size());
  record.num_ops = plan.num_ops;
  record.explore_ms = plan.explore_ms;
  record.origin = plan.origin;
  record.triggers = plan.triggers;
  return record;
}

// The source's kernels by the plans (of the kernel's own environment) that use them; a kernel
// whose checksum fails, or that is not stored under the key of its own text, is refused and
// named instead (a copy never carries damage, Note [Kernels are their plans'],
// bundle_kernel_check.h).
using KernelsByPlan = std::map<PlanRowId, std::vector<const KernelRecord*>>;
Status ReadKernelsByPlan(PlanRepository& source, std::vector<KernelRecord>* kernels,
                         KernelsByPlan* out, CopyResult* result) {
  if (Status s = ListKernels(source.sql(), {.sources = true, .binaries = true}, kernels); !s.ok()) {
    return s;
  }
  for (const KernelRecord& k : *kernels) {
    std::optional<std::string> problem = KernelChecksumProblem(k.binary, k.checksum);
    if (!problem.has_value() && !k.links.empty()) problem = KernelKeyProblem(k);
    if (problem.has_value()) {
      ++result->kernels_refused;
      result->refusals.push_back({KernelLabel(k), std::move(*problem)});
      continue;
    }
    for (const KernelLink& link : k.links) {
      if (link.plan_environment_id != k.environment_id) continue;
      (*out)[link.plan_id].push_back(&k);
    }
  }
  return Status::Ok();
}

// Whether kernels may move from `source` to `target`: both must be databases the engine would
// keep kernels in without --allow-shared-writable (Note [Stored kernels],
// store/persistent_kernels.h). When not, the refusal is named once in *result.
bool KernelsMayMove(PlanRepository& source, PlanRepository& target, CopyResult* result) {
  for (PlanRepository* repo : {&source, &target}) {
    std::string why;
    if (KernelsTrustedAt(repo->location(), &why)) continue;
    result->kernels_untrusted = true;
    result->refusals.push_back(
        {"the kernels of " + source.location(),
         fmt::format("not copied: {} (a kernel binary is code, and --allow-shared-writable "
                     "widens the trust of plans only; the engine compiles them again)",
                     why)});
    return false;
  }
  return true;
}

}  // namespace

Status CopyPlans(PlanRepository& source, PlanRepository& target, CopyResult* result) {
  *result = CopyResult();
  if (Status s = target.CheckWritable("copying plans into it"); !s.ok()) return s;
  std::vector<KernelRecord> kernel_rows;
  KernelsByPlan kernels;
  if (KernelsMayMove(source, target, result)) {
    if (Status s = ReadKernelsByPlan(source, &kernel_rows, &kernels, result); !s.ok()) return s;
  }
  // Kernels some checked plan was offered but does not generate, and those linked to one that
  // does: the first kind, never linked, is refused once.
  std::set<KernelRowId> not_generated;
  std::set<KernelRowId> carried;
  std::vector<EnvironmentRow> environments;
  if (Status s = source.ListEnvironments(&environments); !s.ok()) return s;
  for (const EnvironmentRow& environment : environments) {
    LoadedPlans loaded;
    if (Status s = source.LoadAllPlans(environment.id, &loaded); !s.ok()) return s;
    if (loaded.quarantined > 0) {
      // (The source, read-only, logged each; `ember-plans verify` there names them.)
      result->refusals.push_back(
          {fmt::format("{} plan(s) of {}", loaded.quarantined, environment.stable_id),
           "key or checksum does not match the row"});
      result->refused += static_cast<int64_t>(loaded.quarantined);
    }
    PublishBatch batch;
    for (const StoredPlan& plan : loaded.plans) {
      ExecutionPlan decoded;
      if (Status s = CheckPlanRecord(RecordOf(plan, environment.id), &decoded); !s.ok()) {
        result->refusals.push_back(
            {fmt::format("plan {} of {}", plan.id, environment.stable_id), s.message()});
        ++result->refused;
        continue;
      }
      PublishItem item;
      item.plan = {.first_op_hash = plan.first_op_hash,
                   .plan_key = plan.plan_key,
                   .ops_blob = plan.ops_blob,
                   .plan_blob = plan.plan_blob,
                   .num_ops = plan.num_ops,
                   .explore_ms = plan.explore_ms,
                   .origin = plan.origin};
      item.triggers = plan.triggers;
      if (auto used = kernels.find(plan.id); used != kernels.end()) {
        for (const KernelRecord* k : used->second) {
          if (!PlanGeneratesKernel(decoded, k->text)) {
            not_generated.insert(k->id);
            continue;
          }
          carried.insert(k->id);
          item.kernels.push_back({.key = k->key, .binary = k->binary, .text = k->text});
        }
      }
      batch.plans.push_back(std::move(item));
    }
    if (batch.plans.empty()) continue;
    if (Status s = target.EnsureEnvironmentText(environment.stable_id, environment.description,
                                                &batch.environment_id);
        !s.ok()) {
      return s;
    }
    PublishResult published;
    if (Status s = target.Publish(batch, &published); !s.ok()) return s;
    ++result->environments;
    result->triggers_added += published.triggers_added;
    result->kernels_added += published.kernels_added;
    for (size_t i = 0; i < published.plans.size(); ++i) {
      switch (published.plans[i].outcome) {
        case InsertOutcome::kInserted:
        case InsertOutcome::kReplacedQuarantined: ++result->inserted; break;
        case InsertOutcome::kExisting: ++result->existing; break;
        case InsertOutcome::kKeyCollision:
          ++result->refused;
          result->refusals.push_back(
              {fmt::format("plan {} of {}", loaded.plans[i].id, environment.stable_id),
               "another plan of the target has its key"});
          break;
      }
    }
  }
  for (const KernelRecord& k : kernel_rows) {
    if (!not_generated.contains(k.id) || carried.contains(k.id)) continue;
    ++result->kernels_refused;
    result->refusals.push_back(
        {KernelLabel(k),
         "its source is not what a fused trace of the plans it is linked to generates (the "
         "engine compiles their kernels again)"});
  }
  return Status::Ok();
}

}  // namespace ember
