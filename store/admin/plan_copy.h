// Copying plans between two plan databases of any kind (`ember-plans copy SRC DST`): a SQLite
// file onto a PostgreSQL server when a fleet outgrows one machine, or a server's plans into a
// file to inspect them or carry them to a machine without the server.
//
// What moves is what a bundle carries (Note [Plan bundles], plan_bundle.h): every environment
// that has plans, every 'ok' plan with its triggers and exploration time, each checked as the
// engine would load it (CheckPlanRecord) — a row that fails is refused and named, never copied
// — and the compiled kernels those plans use (Note [Kernel links]) under the rules of a trusted
// import: each checked against its checksum, stored under the key of its own text, and linked
// to the target's row of every copied plan whose fused trace generates it (Note [Kernels are
// their plans'], bundle_kernel_check.h). A copy's kernels need no --trust-kernels only because
// both databases are ones the engine would run kernels from: kernels move only when the source
// and the target both pass the strict trust check (Note [Stored kernels],
// store/persistent_kernels.h), so --allow-shared-writable, which lets the plans of a file
// others can write be read, never carries that file's binaries (the copy says so once and the
// engine compiles them again). Plans and kernels go in through Publish, under the rules of
// plan_repository.h: a plan the target already has keeps its row and gains the source's
// triggers; a kernel the target has (same source hash, arch and compiler version) keeps its
// binary. Workloads, budgets and hit counts stay behind (they belong to the machines that earned
// them), and so do graph recipes (each is a workload's; a process there captures its windows
// again after they repeat) and kernels no plan uses. Each environment's plans and kernels commit in
// one transaction.
//
// Threading: one thread, each repository used by it alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "store/repository/plan_repository.h"

namespace ember {

struct CopyRefusal {
  std::string row;  // "plan 7 of env-…"
  std::string reason;
};

struct CopyResult {
  int64_t environments = 0;  // environments with at least one plan copied or found
  int64_t inserted = 0;      // plans new to the target
  int64_t existing = 0;      // plans the target had (their triggers merged)
  int64_t refused = 0;       // failed a check, or collided with another plan's key
  size_t triggers_added = 0;
  size_t kernels_added = 0;     // new kernel rows in the target
  int64_t kernels_refused = 0;  // failed a check (named in refusals)
  // The kernels were left behind: the source or the target may not hold kernels for this user
  // (said once in refusals).
  bool kernels_untrusted = false;
  std::vector<CopyRefusal> refusals;
};

// Copies from `source` (only read) into `target`, which must be writable.
Status CopyPlans(PlanRepository& source, PlanRepository& target, CopyResult* result);

}  // namespace ember
