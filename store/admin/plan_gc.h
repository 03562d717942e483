// Garbage collection of a plan database (`ember-plans gc`): which plans to evict, evicting
// them, and removing the compiled kernels no plan uses any more.
//
// Note [Plan value]: a plan is worth what it saves per byte it costs:
//     value = explore_ms × (hits + 1) / (ops_bytes + plan_bytes)
// (the exploration it spares every process that loads it, times how often it was used, over
// its size). Eviction takes the lowest value first; ties go to the plan used least recently
// (last_hit, or created when never hit), then to the lower id. Only rows with status 'ok' are
// candidates (quarantined rows are `ember-plans quarantine clear`'s job) and their bytes are
// what `max_bytes` measures.
//
// Selection (SelectPlansToEvict, a pure function):
//   * `environment` narrows the candidates, and the byte total, to one environment;
//   * `older_than`: every candidate whose last use is older than now − older_than goes;
//   * `max_bytes`: then, lowest value first, until the candidates' total bytes are ≤ max_bytes;
//   * a plan whose key `protected_plan_keys` returns for its environment is never evicted
//     (Note [Plans in use by a live segment]); when protected plans alone exceed max_bytes, the
//     selection stops short and says so.
// Neither older_than nor max_bytes: no plan is evicted (only orphan kernels go, below).
//
// Kernels (SelectKernelsToRemove, pure): once the evictions are chosen, every kernel that no
// remaining plan links to (Note [Kernel links], store/admin/kernel_inventory.h) goes too — the
// ones the evicted plans alone used and those that were orphans already; with `environment`,
// only that environment's. A plan gc keeps, protected ones included, keeps its kernels, so a
// worker that serves a plan from a live segment still finds its kernels in SQLite.
//
// Note [Plans in use by a live segment]: a shared-memory segment of (database, environment)
// (Note [Shared plan segment], store/shm/shared_plan_tier.h) serves plans to running workers by
// their keys and answers for SQLite for the first ops it knows; evicting such a plan from
// SQLite would make the durable tier disagree with what the workers run, so gc asks, per
// environment, for the keys the live segment holds (`ember-plans gc` passes
// SharedPlanTier::ListKeys). When that question fails, gc evicts nothing: it cannot tell what
// is in use. The default (no function) protects nothing.
//
// Threading: one thread at a time per database.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/ir/hash.h"
#include "store/admin/kernel_inventory.h"
#include "store/repository/plan_repository.h"
#include "store/repository/plan_rows.h"

namespace ember {

// Fills *keys with the plan keys that must stay for the environment with this stable id
// ("env-…"). An error stops the collection (Note [Plans in use by a live segment]).
using ProtectedPlanKeys =
    std::function<Status(const std::string& environment, std::vector<Hash128>* keys)>;

struct GcOptions {
  std::optional<std::chrono::milliseconds> older_than;
  std::optional<int64_t> max_bytes;
  std::optional<EnvironmentRowId> environment;
  ProtectedPlanKeys protected_plan_keys;  // null: nothing is protected
  bool dry_run = false;
};

// What selection needs to know about one plan.
struct GcCandidate {
  PlanRowId id = 0;
  EnvironmentRowId environment_id = 0;
  std::string environment;  // stable id
  Hash128 plan_key;
  int64_t num_ops = 0;
  double explore_ms = 0;
  int64_t hits = 0;
  int64_t bytes = 0;     // ops_bytes + plan_bytes
  int64_t last_use = 0;  // last_hit, or created when never hit (Unix ms)
  bool is_protected = false;
};

// Note [Plan value].
double PlanValue(const GcCandidate& plan);

struct GcEviction {
  GcCandidate plan;
  double value = 0;
  std::string reason;  // "older than 30d", "over max-bytes"
};

// A kernel that no plan uses once the evictions are done.
struct GcKernelRemoval {
  KernelRowId id = 0;
  EnvironmentRowId environment_id = 0;
  std::string name;
  std::string arch;
  std::string compiler_version;
  int64_t bytes = 0;  // length(binary)
};

struct GcReport {
  std::vector<GcEviction> evicted;               // in the order chosen
  std::vector<GcKernelRemoval> kernels_removed;  // by id
  int64_t kernel_bytes_removed = 0;
  // Device facts whose environment row is gone (Note [Device facts]): removed whatever the
  // options, like orphan kernels. Deleting an environment deletes its facts (ON DELETE
  // CASCADE); these are left by a session that ran with foreign keys off.
  int64_t facts_removed = 0;
  // Graph recipes that name a kernel their environment no longer stores, counting the kernels
  // this run removes (Note [Graph recipes]): removed whatever the options.
  int64_t recipes_removed = 0;
  int64_t candidates = 0;       // plans considered
  int64_t protected_plans = 0;  // candidates kept because a live segment holds them
  int64_t bytes_before = 0;     // the candidates' total bytes
  int64_t bytes_after = 0;
  bool max_bytes_unreached = false;  // protected plans alone exceed max_bytes
  bool dry_run = false;
};

// Pure: the evictions for `candidates` (is_protected already set) at time `now_ms`.
GcReport SelectPlansToEvict(std::vector<GcCandidate> candidates, const GcOptions& options,
                            int64_t now_ms);

// Pure: the kernels of `kernels` (with their links) that no plan uses once the plans `evicted`
// are gone; with `environment`, only the kernels of that environment. A link to a plan that
// does not exist is no use.
std::vector<GcKernelRemoval> SelectKernelsToRemove(const std::vector<KernelRecord>& kernels,
                                                   const std::set<PlanRowId>& evicted,
                                                   std::optional<EnvironmentRowId> environment);

// Reads the candidates, asks options.protected_plan_keys (its error is returned and nothing is
// evicted), selects the plans and then the kernels, and (unless dry_run) deletes the chosen plans —
// their triggers, plan usage and kernel links go with them (ON DELETE CASCADE) — the chosen
// kernels, the graph recipes that launch a kernel no longer stored and the device facts of
// environments that are gone, all in one write transaction, so a plan or kernel published meanwhile
// is either seen or untouched. On a server, a chosen plan or kernel that a live writer's
// transaction holds at that moment is kept, for a later gc, rather than waited for (Note [Gc beside
// live writers], plan_gc.cpp): it is not in report->evicted (or kernels_removed), and its bytes
// count in bytes_after. On a SQLite file or a PostgreSQL server alike (repo.sql()); on a server,
// options.protected_plan_keys can only speak for the segments of the host gc runs on
// (docs/PLAN_DATABASE.md). REQUIRES: `repo` writable unless options.dry_run.
Status CollectGarbage(PlanRepository& repo, const GcOptions& options, GcReport* report);

}  // namespace ember
