#include "store/admin/plan_gc.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "engine/core/clock.h"
#include "store/admin/plan_inventory.h"
#include "store/admin/recipe_inventory.h"
#include "store/repository/column_encoding.h"

namespace ember {

namespace {

struct KeyLess {
  bool operator()(const Hash128& a, const Hash128& b) const {
    return a.high != b.high ? a.high < b.high : a.low < b.low;
  }
};

Status ReadCandidates(SqlSession& sql, const GcOptions& options, std::vector<GcCandidate>* out) {
  out->clear();
  std::vector<SqlValue> args;
  if (options.environment.has_value()) args.emplace_back(int64_t{*options.environment});
  const Status read = sql.Query(
      fmt::format("SELECT p.id, p.environment_id, COALESCE(e.fingerprint, ''), p.plan_key, "
                  "p.num_ops, p.explore_ms, p.hits, p.ops_bytes + p.plan_bytes, "
                  "COALESCE(p.last_hit, p.created) FROM plans p LEFT JOIN environments e "
                  "ON e.id = p.environment_id WHERE p.status = 'ok' {} ORDER BY p.id",
                  options.environment.has_value() ? "AND p.environment_id = ?1" : ""),
      args, "reading gc candidates", [&](const SqlRow& row) {
        GcCandidate c;
        c.id = row.Int64(0);
        c.environment_id = row.Int64(1);
        c.environment = row.Text(2);
        c.plan_key = PlanKeyFromBytes(row.Blob(3)).value_or(Hash128());
        c.num_ops = row.Int64(4);
        c.explore_ms = row.Double(5);
        c.hits = row.Int64(6);
        c.bytes = row.Int64(7);
        c.last_use = row.Int64(8);
        out->push_back(std::move(c));
      });
  if (!read.ok()) return read;
  if (!options.protected_plan_keys) return Status::Ok();
  std::map<std::string, std::set<Hash128, KeyLess>> held;
  for (GcCandidate& c : *out) {
    auto it = held.find(c.environment);
    if (it == held.end()) {
      std::vector<Hash128> keys;
      if (Status s = options.protected_plan_keys(c.environment, &keys); !s.ok()) {
        return s;
      }
      it = held.emplace(c.environment, std::set<Hash128, KeyLess>(keys.begin(), keys.end())).first;
    }
    c.is_protected = it->second.contains(c.plan_key);
  }
  return Status::Ok();
}

std::string FormatAge(std::chrono::milliseconds age) {
  const int64_t ms = age.count();
  if (ms % 86'400'000 == 0) return fmt::format("{}d", ms / 86'400'000);
  if (ms % 3'600'000 == 0) return fmt::format("{}h", ms / 3'600'000);
  if (ms % 60'000 == 0) return fmt::format("{}m", ms / 60'000);
  if (ms % 1000 == 0) return fmt::format("{}s", ms / 1000);
  return fmt::format("{}ms", ms);
}

}  // namespace

double PlanValue(const GcCandidate& plan) {
  const double bytes = static_cast<double>(std::max<int64_t>(plan.bytes, 1));
  return plan.explore_ms * static_cast<double>(plan.hits + 1) / bytes;
}

GcReport SelectPlansToEvict(std::vector<GcCandidate> candidates, const GcOptions& options,
                            int64_t now_ms) {
  GcReport report;
  report.dry_run = options.dry_run;
  report.candidates = static_cast<int64_t>(candidates.size());
  for (const GcCandidate& c : candidates) {
    report.bytes_before += c.bytes;
    report.protected_plans += c.is_protected ? 1 : 0;
  }
  // Lowest value first; ties: least recently used, then lowest id (Note [Plan value]).
  std::sort(candidates.begin(), candidates.end(), [](const GcCandidate& a, const GcCandidate& b) {
    const double va = PlanValue(a);
    const double vb = PlanValue(b);
    if (va != vb) return va < vb;
    if (a.last_use != b.last_use) return a.last_use < b.last_use;
    return a.id < b.id;
  });
  int64_t total = report.bytes_before;
  std::vector<bool> gone(candidates.size(), false);
  if (options.older_than.has_value()) {
    const int64_t cutoff = now_ms - options.older_than->count();
    for (size_t i = 0; i < candidates.size(); ++i) {
      const GcCandidate& c = candidates[i];
      if (c.is_protected || c.last_use >= cutoff) continue;
      gone[i] = true;
      total -= c.bytes;
      report.evicted.push_back(
          {c, PlanValue(c), "not used for more than " + FormatAge(*options.older_than)});
    }
  }
  if (options.max_bytes.has_value()) {
    for (size_t i = 0; i < candidates.size() && total > *options.max_bytes; ++i) {
      const GcCandidate& c = candidates[i];
      if (gone[i] || c.is_protected) continue;
      gone[i] = true;
      total -= c.bytes;
      report.evicted.push_back({c, PlanValue(c), "lowest value over --max-bytes"});
    }
    report.max_bytes_unreached = total > *options.max_bytes;
  }
  report.bytes_after = total;
  return report;
}

std::vector<GcKernelRemoval> SelectKernelsToRemove(const std::vector<KernelRecord>& kernels,
                                                   const std::set<PlanRowId>& evicted,
                                                   std::optional<EnvironmentRowId> environment) {
  std::vector<GcKernelRemoval> removed;
  for (const KernelRecord& k : kernels) {
    if (environment.has_value() && k.environment_id != *environment) continue;
    const bool used = std::any_of(k.links.begin(), k.links.end(), [&](const KernelLink& link) {
      return link.plan_environment_id.has_value() && !evicted.contains(link.plan_id);
    });
    if (used) continue;
    removed.push_back({.id = k.id,
                       .environment_id = k.environment_id,
                       .name = k.text.name,
                       .arch = k.key.arch,
                       .compiler_version = k.key.compiler_version,
                       .bytes = k.bytes});
  }
  return removed;
}

namespace {

// The kernels no plan uses once report->evicted are gone, into *report.
Status SelectKernels(SqlSession& sql, const GcOptions& options, GcReport* report) {
  std::vector<KernelRecord> kernels;
  if (Status s = ReadKernels(sql, KernelFilter(), &kernels); !s.ok()) return s;
  std::set<PlanRowId> evicted;
  for (const GcEviction& e : report->evicted) evicted.insert(e.plan.id);
  report->kernels_removed = SelectKernelsToRemove(kernels, evicted, options.environment);
  report->kernel_bytes_removed = 0;
  for (const GcKernelRemoval& k : report->kernels_removed) report->kernel_bytes_removed += k.bytes;
  return Status::Ok();
}

// Deletes the rows of `table` whose ids `ids` lists.
Status DeleteRows(SqlSession& sql, std::string_view table, const std::vector<int64_t>& ids) {
  const std::string statement = fmt::format("DELETE FROM {} WHERE id = ?1", table);
  const std::string what = fmt::format("collecting garbage from {}", table);
  for (const int64_t id : ids) {
    if (Status s = sql.Exec(statement, {SqlValue(id)}, what); !s.ok()) return s;
  }
  return Status::Ok();
}

// Note [Gc beside live writers]
// On a server, writers run beside gc and lock the plan rows they write to in their own order
// (a trigger's plan, FOR UPDATE: PlanRepository::ResolvePlanRow; a plan published again; the
// plans whose hits they count), while gc's deletes locked the rows they remove one by one, in
// id order. Each side could come to hold a row the other waited for: a deadlock, which the
// server breaks only after its deadlock_timeout (a second) by failing one of them. gc, whose
// transaction spans every row it removes, was the one failed as often as not, and with writers
// busy each of its retries (pg::Connection::Transaction) deadlocked again until gc itself
// failed. So gc first locks the rows it chose without waiting (SqlSession::SkipLockedClause): a
// plan or kernel that a writer's transaction holds at that moment is in use and is kept, for a
// later gc; then it deletes only rows it holds. A writer that waits for one of them finds it
// gone once gc commits, and stores the plan again (Note [Plans gc removed],
// store/repository/plan_writer.h). The engine writes the rows a plan's delete cascades to
// (triggers, usage, kernel links) only under a lock on the plan, so gc never waits for a writer
// there either; the one exception, a kernel replaced in place whose link to its first plan gc
// clears, is left to the retries. On a SQLite file the write transaction excludes every writer:
// nothing is skipped.

// Keeps in *ids the rows of `table` that this transaction locked without waiting (Note [Gc
// beside live writers]): all of them on a SQLite file, and none that is gone meanwhile.
Status KeepLockable(SqlSession& sql, std::string_view table, std::vector<int64_t>* ids) {
  const std::string_view skip_locked = sql.SkipLockedClause();
  if (skip_locked.empty()) return Status::Ok();
  const std::string statement =
      fmt::format("SELECT id FROM {} WHERE id = ?1{}", table, skip_locked);
  const std::string what = fmt::format("locking the {} gc removes", table);
  std::vector<int64_t> held;
  for (const int64_t id : *ids) {
    bool locked = false;
    if (Status s =
            sql.Query(statement, {SqlValue(id)}, what, [&](const SqlRow&) { locked = true; });
        !s.ok()) {
      return s;
    }
    if (locked) held.push_back(id);
  }
  *ids = std::move(held);
  return Status::Ok();
}

// Drops from report->evicted the plans a live writer holds (Note [Gc beside live writers]):
// they stay, and their bytes with them.
Status HoldEvictions(SqlSession& sql, GcReport* report) {
  std::vector<int64_t> ids;
  for (const GcEviction& e : report->evicted) ids.push_back(e.plan.id);
  if (Status s = KeepLockable(sql, "plans", &ids); !s.ok()) return s;
  const std::set<int64_t> held(ids.begin(), ids.end());
  std::vector<GcEviction> evicted;
  for (GcEviction& e : report->evicted) {
    if (held.contains(e.plan.id)) {
      evicted.push_back(std::move(e));
    } else {
      report->bytes_after += e.plan.bytes;
    }
  }
  report->evicted = std::move(evicted);
  return Status::Ok();
}

// The same for report->kernels_removed.
Status HoldKernelRemovals(SqlSession& sql, GcReport* report) {
  std::vector<int64_t> ids;
  for (const GcKernelRemoval& k : report->kernels_removed) ids.push_back(k.id);
  if (Status s = KeepLockable(sql, "kernels", &ids); !s.ok()) return s;
  const std::set<int64_t> held(ids.begin(), ids.end());
  std::vector<GcKernelRemoval> removed;
  report->kernel_bytes_removed = 0;
  for (GcKernelRemoval& k : report->kernels_removed) {
    if (!held.contains(k.id)) continue;
    report->kernel_bytes_removed += k.bytes;
    removed.push_back(std::move(k));
  }
  report->kernels_removed = std::move(removed);
  return Status::Ok();
}

// The device facts whose environment row is gone: counted into *report, and deleted unless
// `dry_run`. Nothing before schema 5 (no such table).
Status RemoveOrphanFacts(SqlSession& sql, int schema_version, bool dry_run, GcReport* report) {
  if (schema_version < kDeviceFactsSchema) return Status::Ok();
  constexpr char kOrphans[] =
      "FROM device_facts WHERE NOT EXISTS (SELECT 1 FROM environments e WHERE e.id = "
      "device_facts.environment_id)";
  if (dry_run) {
    return QueryInt64(sql, fmt::format("SELECT COUNT(*) {}", kOrphans), {},
                      "counting orphan device facts", &report->facts_removed);
  }
  return sql.Exec(fmt::format("DELETE {}", kOrphans), {}, "removing orphan device facts",
                  &report->facts_removed);
}

// The graph recipes that name a kernel their environment will no longer store once the kernels
// of report->kernels_removed are gone (Note [Graph recipes]: kernels go with the plans that
// used them, and so do the recipes that launch them): counted into *report, and deleted unless
// `dry_run`. Rows that fail their checksum stay, whatever their kernel list says (it cannot be
// trusted; verify names them). Nothing before schema 6 (no such table).
Status RemoveRecipesOfGoneKernels(SqlSession& sql, int schema_version, bool dry_run,
                                  GcReport* report) {
  if (schema_version < kGraphRecipesSchema) return Status::Ok();
  std::set<int64_t> removed;
  for (const GcKernelRemoval& k : report->kernels_removed) removed.insert(k.id);
  StoredKernelHashes stored;
  if (Status s = ReadStoredKernelHashes(sql, removed, &stored); !s.ok()) return s;
  std::vector<GraphRecipeRecord> recipes;
  if (Status s = ReadGraphRecipes(sql, RecipeFilter(), &recipes); !s.ok()) return s;
  for (const GraphRecipeRecord& r : recipes) {
    if (!r.checksum_ok || MissingRecipeKernels(r, stored).empty()) continue;
    ++report->recipes_removed;
    if (dry_run) continue;
    if (Status s = sql.Exec(
            "DELETE FROM graph_recipes WHERE environment_id = ?1 AND workload = ?2 AND key = ?3",
            {SqlValue(int64_t{r.environment_id}), SqlValue(r.workload),
             SqlValue(ToColumn(r.recipe.key))},
            "removing graph recipes whose kernels are gone");
        !s.ok()) {
      return s;
    }
  }
  return Status::Ok();
}

}  // namespace

Status CollectGarbage(PlanRepository& repo, const GcOptions& options, GcReport* report) {
  if (!options.dry_run) {
    if (Status s = repo.CheckWritable("collecting garbage"); !s.ok()) return s;
  }
  SqlSession& sql = repo.sql();
  const auto body = [&]() -> Status {
    std::vector<GcCandidate> candidates;
    if (Status s = ReadCandidates(sql, options, &candidates); !s.ok()) return s;
    *report = SelectPlansToEvict(std::move(candidates), options, NowUnixMillis());
    // Before the kernels: a plan kept because a writer holds it keeps its kernels too.
    if (!options.dry_run) {
      if (Status s = HoldEvictions(sql, report); !s.ok()) return s;
    }
    if (Status s = SelectKernels(sql, options, report); !s.ok()) return s;
    if (!options.dry_run) {
      if (Status s = HoldKernelRemovals(sql, report); !s.ok()) return s;
    }
    if (Status s = RemoveRecipesOfGoneKernels(sql, repo.schema_version(), options.dry_run, report);
        !s.ok()) {
      return s;
    }
    if (options.dry_run) return RemoveOrphanFacts(sql, repo.schema_version(), true, report);
    std::vector<int64_t> plans;
    for (const GcEviction& e : report->evicted) plans.push_back(e.plan.id);
    if (Status s = DeleteRows(sql, "plans", plans); !s.ok()) return s;
    std::vector<int64_t> kernels;
    for (const GcKernelRemoval& k : report->kernels_removed) kernels.push_back(k.id);
    if (Status s = DeleteRows(sql, "kernels", kernels); !s.ok()) return s;
    return RemoveOrphanFacts(sql, repo.schema_version(), options.dry_run, report);
  };
  return options.dry_run ? sql.ReadTransaction("collecting garbage", body)
                         : sql.WriteTransaction("collecting garbage", body);
}

}  // namespace ember
