#include "store/admin/bundle_kernels.h"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "store/admin/bundle_kernel_check.h"
#include "store/sqlite/sqlite_statement.h"

namespace ember {

namespace {

// The bundle plans of `plan_ids` that `k` is linked to and that are of k's environment: the plan
// it was first compiled for first (when among them), then the others by id.
std::vector<PlanRowId> LinkedPlans(const KernelRecord& k,
                                   const std::map<PlanRowId, PlanRowId>& plan_ids) {
  std::vector<PlanRowId> first;
  std::vector<PlanRowId> others;
  for (const KernelLink& link : k.links) {
    if (link.plan_environment_id != k.environment_id) continue;
    if (!plan_ids.contains(link.plan_id)) continue;
    (k.plan_id == link.plan_id ? first : others).push_back(link.plan_id);
  }
  first.insert(first.end(), others.begin(), others.end());
  return first;
}

// LinkedPlans mapped to the target's rows.
std::vector<PlanRowId> MappedPlans(const KernelRecord& k,
                                   const std::map<PlanRowId, PlanRowId>& plan_ids) {
  std::vector<PlanRowId> mapped;
  for (const PlanRowId plan : LinkedPlans(k, plan_ids)) mapped.push_back(plan_ids.at(plan));
  return mapped;
}

// Why `k` must not be imported, or nullopt. *plans gets the target plans to link it to: those
// of its imported plans that generate it (Note [Kernels are their plans'],
// bundle_kernel_check.h).
std::optional<std::string> KernelRefusal(
    const KernelRecord& k, const std::map<EnvironmentRowId, EnvironmentRowId>& env_ids,
    const std::map<PlanRowId, PlanRowId>& plan_ids,
    const std::map<PlanRowId, ExecutionPlan>& decoded, std::vector<PlanRowId>* plans) {
  if (auto problem = KernelChecksumProblem(k.binary, k.checksum)) return problem;
  if (!env_ids.contains(k.environment_id)) return "its environment was refused";
  for (const KernelLink& link : k.links) {
    if (link.plan_environment_id.has_value() && *link.plan_environment_id != k.environment_id) {
      return fmt::format("the bundle links it to plan {} of another environment", link.plan_id);
    }
  }
  const std::vector<PlanRowId> linked = LinkedPlans(k, plan_ids);
  if (linked.empty()) return "no plan of the bundle that uses it was imported";
  std::vector<const ExecutionPlan*> candidates;
  for (const PlanRowId plan : linked) candidates.push_back(&decoded.at(plan));
  std::string why;
  plans->clear();
  for (const size_t i : PlansOfKernel(k, candidates, &why)) {
    plans->push_back(plan_ids.at(linked[i]));
  }
  if (plans->empty()) return why;
  return std::nullopt;
}

}  // namespace

Status WriteBundleKernels(SqliteDatabase& db, const std::vector<KernelRecord>& kernels,
                          const std::map<EnvironmentRowId, EnvironmentRowId>& env_ids,
                          const std::map<PlanRowId, PlanRowId>& plan_ids, int64_t* written,
                          int64_t* damaged) {
  SqliteStatement kernel;
  if (Status s = db.Prepare(
          "INSERT INTO kernels (environment_id, plan_id, source_hash, arch, compiler_version, "
          "binary, checksum, created, name, source, options) "
          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
          "writing a kernel", &kernel);
      !s.ok()) {
    return s;
  }
  SqliteStatement link;
  if (Status s = db.Prepare("INSERT INTO plan_kernels (plan_id, kernel_id) VALUES (?1, ?2)",
                            "linking a kernel", &link);
      !s.ok()) {
    return s;
  }
  for (const KernelRecord& k : kernels) {
    const auto env_id = env_ids.find(k.environment_id);
    const std::vector<PlanRowId> plans = MappedPlans(k, plan_ids);
    if (env_id == env_ids.end() || plans.empty()) continue;
    if (KernelChecksumProblem(k.binary, k.checksum)) {
      ++*damaged;
      continue;
    }
    kernel.Reset();
    kernel.BindInt64(1, env_id->second);
    kernel.BindInt64(2, plans.front());
    kernel.BindBlob(3, k.key.source_hash);
    kernel.BindText(4, k.key.arch);
    kernel.BindText(5, k.key.compiler_version);
    kernel.BindBlob(6, k.binary);
    kernel.BindInt64(7, k.checksum);
    kernel.BindInt64(8, k.created);
    kernel.BindText(9, k.text.name);
    kernel.BindText(10, k.text.source);
    kernel.BindText(11, k.text.options);
    if (Status s = kernel.Run(); !s.ok()) return s;
    const KernelRowId id = db.last_insert_rowid();
    for (const PlanRowId plan : plans) {
      link.Reset();
      link.BindInt64(1, plan);
      link.BindInt64(2, id);
      if (Status s = link.Run(); !s.ok()) return s;
    }
    ++*written;
  }
  return Status::Ok();
}

Status ImportBundleKernels(PlanRepository& target, const std::vector<KernelRecord>& kernels,
                           const std::map<EnvironmentRowId, EnvironmentRowId>& env_ids,
                           const std::map<PlanRowId, PlanRowId>& plan_ids,
                           const std::map<PlanRowId, ExecutionPlan>& decoded, bool trust,
                           int64_t now, ImportResult* result) {
  if (!trust) {
    result->kernels_untrusted += kernels.size();
    return Status::Ok();
  }
  for (const KernelRecord& k : kernels) {
    std::vector<PlanRowId> plans;
    if (std::optional<std::string> refusal = KernelRefusal(k, env_ids, plan_ids, decoded, &plans)) {
      ++result->kernels_refused;
      result->refusals.push_back({KernelLabel(k), *refusal});
      continue;
    }
    const NewKernel kernel{.key = k.key, .binary = k.binary, .text = k.text};
    bool first_added = false;
    for (size_t i = 0; i < plans.size(); ++i) {
      KernelRowId id = 0;
      bool added = false;
      if (Status s = target.WriteKernelRow(env_ids.at(k.environment_id), kernel, plans[i], now, &id,
                                           &added);
          !s.ok()) {
        return s;
      }
      if (i == 0) first_added = added;
    }
    ++(first_added ? result->kernels_added : result->kernels_existing);
  }
  return Status::Ok();
}

}  // namespace ember
