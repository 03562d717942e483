#include "store/admin/plan_verification.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

#include "store/admin/kernel_inventory.h"
#include "store/admin/plan_inventory.h"
#include "store/admin/recipe_inventory.h"
#include "store/codec/environment_fingerprint.h"
#include "store/repository/plan_repository.h"
#include "store/repository/plan_row_check.h"
#include "store/sqlite/migrations.h"

namespace ember {

namespace {

// Rows of `sql` as text columns joined by ", "; a failure becomes a problem under `where`.
void CollectRows(SqlSession& sql, std::string_view statement, std::string_view where,
                 std::vector<std::string>* rows, VerificationReport* report) {
  Status s = sql.ReadTransaction(where, [&]() -> Status {
    rows->clear();
    return sql.Query(statement, {}, where,
                     [&](const SqlRow& row) { rows->push_back(row.Text(0)); });
  });
  if (!s.ok()) report->problems.push_back({std::string(where), s.message()});
}

// Every foreign key of the schema (migrations/postgres/), as (child table, column, parent), and
// the schema version that added it.
struct ForeignKey {
  const char* table;
  const char* column;
  const char* parent;
  int since = 1;
};
constexpr ForeignKey kForeignKeys[] = {
    {"plans", "environment_id", "environments"},
    {"triggers", "plan_id", "plans"},
    {"workloads", "environment_id", "environments"},
    {"plan_usage", "workload_id", "workloads"},
    {"plan_usage", "plan_id", "plans"},
    {"kernels", "environment_id", "environments"},
    {"kernels", "plan_id", "plans"},
    {"plan_kernels", "plan_id", "plans", 2},
    {"plan_kernels", "kernel_id", "kernels", 2},
    {"device_facts", "environment_id", "environments", kDeviceFactsSchema},
    {"graph_recipes", "environment_id", "environments", kGraphRecipesSchema}};

// SQLite's own checks of the file: its structure, then its foreign keys.
void CheckSqliteStructure(SqlSession& sql, VerificationReport* report) {
  report->integrity_checked = true;
  CollectRows(sql, "PRAGMA integrity_check", "integrity_check", &report->integrity, report);
  if (!(report->integrity.size() == 1 && report->integrity[0] == "ok")) {
    for (const std::string& line : report->integrity) {
      report->problems.push_back({"integrity_check", line});
    }
  }
  std::vector<std::string> orphans;
  CollectRows(sql,
              "SELECT \"table\" || ' row ' || COALESCE(rowid, '?') || ' refers to a missing ' || "
              "parent || ' row' FROM pragma_foreign_key_check",
              "foreign_key_check", &orphans, report);
  for (const std::string& line : orphans) report->problems.push_back({"foreign_key_check", line});
}

// On a server the pages are the server's to check (pg_amcheck); its foreign keys are enforced
// as rows are written, except where a session turned the checks off (session_replication_role
// = replica, as pg_restore --disable-triggers does), so each key is checked as a query.
void CheckServerForeignKeys(SqlSession& sql, int schema_version, VerificationReport* report) {
  std::vector<std::string> orphans;
  for (const ForeignKey& key : kForeignKeys) {
    if (key.since > schema_version) continue;
    std::vector<std::string> rows;
    CollectRows(sql,
                fmt::format("SELECT '{0}.{1} = ' || CAST(c.{1} AS TEXT) || ' refers to a missing "
                            "{2} row' FROM {0} c WHERE c.{1} IS NOT NULL AND NOT EXISTS (SELECT 1 "
                            "FROM {2} p WHERE p.id = c.{1}) ORDER BY c.{1}",
                            key.table, key.column, key.parent),
                "foreign_key_check", &rows, report);
    orphans.insert(orphans.end(), rows.begin(), rows.end());
  }
  for (const std::string& line : orphans) report->problems.push_back({"foreign_key_check", line});
}

void CheckEnvironments(SqlSession& db, VerificationReport* report) {
  std::vector<EnvironmentRecord> environments;
  if (Status s = ListEnvironments(db, &environments); !s.ok()) {
    report->problems.push_back({"environments", s.message()});
    return;
  }
  for (const EnvironmentRecord& e : environments) {
    ++report->environments_checked;
    const std::string expected = EnvironmentStableIdOfText(e.description);
    if (e.fingerprint != expected) {
      report->problems.push_back(
          {fmt::format("environment {}", e.id),
           fmt::format("stable id {} is not the hash of its description ({})", e.fingerprint,
                       expected)});
    }
  }
}

void CheckPlans(SqlSession& db, VerificationReport* report) {
  std::vector<PlanRecord> plans;
  if (Status s = ListPlans(db, PlanFilter(), &plans); !s.ok()) {
    report->problems.push_back({"plans", s.message()});
    return;
  }
  for (const PlanRecord& plan : plans) {
    if (plan.status != "ok") {
      ++report->quarantined;
      continue;
    }
    ++report->plans_checked;
    report->triggers_checked += static_cast<int64_t>(plan.triggers.size());
    if (Status s = CheckPlanRecord(plan, nullptr); !s.ok()) {
      report->problems.push_back({fmt::format("plan {}", plan.id), s.message()});
    }
  }
}

// A kernel's links: none (an orphan, listed in *orphans), or to a plan of another environment
// (a problem: the engine looks kernels up by its own environment, so such a link is never what
// a compile stored).
void CheckKernelLinks(const KernelRecord& k, std::vector<VerificationProblem>* problems,
                      std::vector<std::string>* orphans) {
  const bool used = std::any_of(k.links.begin(), k.links.end(), [](const KernelLink& link) {
    return link.plan_environment_id.has_value();
  });
  if (!used) orphans->push_back(KernelLabel(k));
  for (const KernelLink& link : k.links) {
    if (!link.plan_environment_id.has_value() || *link.plan_environment_id == k.environment_id) {
      continue;  // a link to a missing plan is foreign_key_check's
    }
    problems->push_back(
        {KernelLabel(k),
         fmt::format("used by plan {} of environment {}, but compiled for environment {}",
                     link.plan_id, *link.plan_environment_id, k.environment_id)});
  }
}

// Each kernel's checksum (the binaries are streamed, not held), then its links.
void CheckKernels(SqlSession& sql, VerificationReport* report) {
  int64_t checked = 0;
  std::vector<VerificationProblem> problems;
  std::vector<std::string> orphans;
  Status s = sql.ReadTransaction("reading kernels", [&]() -> Status {
    checked = 0;
    problems.clear();
    orphans.clear();
    std::vector<KernelRecord> kernels;
    if (Status r = ReadKernels(sql, KernelFilter(), &kernels); !r.ok()) return r;
    std::map<KernelRowId, const KernelRecord*> by_id;
    for (const KernelRecord& k : kernels) by_id[k.id] = &k;
    if (Status r = sql.Query(
            "SELECT id, \"binary\", checksum FROM kernels ORDER BY id", {}, "reading kernels",
            [&](const SqlRow& row) {
              ++checked;
              auto problem = KernelChecksumProblem(row.Blob(1), row.Int64(2));
              if (!problem) return;
              const auto k = by_id.find(row.Int64(0));
              problems.push_back({k != by_id.end() ? KernelLabel(*k->second)
                                                   : fmt::format("kernel {}", row.Int64(0)),
                                  std::move(*problem)});
            });
        !r.ok()) {
      return r;
    }
    for (const KernelRecord& k : kernels) CheckKernelLinks(k, &problems, &orphans);
    return Status::Ok();
  });
  report->kernels_checked += checked;
  report->problems.insert(report->problems.end(), problems.begin(), problems.end());
  report->orphan_kernels = std::move(orphans);
  if (!s.ok()) report->problems.push_back({"kernels", s.message()});
}

// Each device fact's checksum (Note [Row checksums]).
void CheckFacts(SqlSession& sql, VerificationReport* report) {
  std::vector<DeviceFactRecord> facts;
  if (Status s = ListDeviceFacts(sql, std::nullopt, &facts); !s.ok()) {
    report->problems.push_back({"device facts", s.message()});
    return;
  }
  for (const DeviceFactRecord& fact : facts) {
    ++report->facts_checked;
    if (fact.checksum_ok) continue;
    report->problems.push_back(
        {fmt::format("device fact '{}' of environment {}", fact.name, fact.environment_id),
         "checksum mismatch (the engine ignores the row and measures again)"});
  }
}

// Each graph recipe (Note [Graph recipes]): its checksum, that it is a tape the engine would use
// (PlanRepository::CheckGraphRecipe: it decodes, its key is the tape's hash, its kernel list
// is the tape's), and that its environment stores every kernel it names.
void CheckRecipes(SqlSession& sql, VerificationReport* report) {
  std::vector<GraphRecipeRecord> recipes;
  StoredKernelHashes stored;
  Status s = sql.ReadTransaction("reading graph recipes", [&]() -> Status {
    if (Status r = ReadGraphRecipes(sql, RecipeFilter(), &recipes); !r.ok()) return r;
    return ReadStoredKernelHashes(sql, {}, &stored);
  });
  if (!s.ok()) {
    report->problems.push_back({"graph recipes", s.message()});
    return;
  }
  for (const GraphRecipeRecord& r : recipes) {
    ++report->recipes_checked;
    const std::string where = fmt::format("graph recipe {:016x} of workload '{}' (environment {})",
                                          r.recipe.key, r.workload, r.environment_id);
    if (!r.checksum_ok) {
      report->problems.push_back(
          {where, "checksum mismatch or an unreadable kernel list (the engine ignores the row)"});
      continue;
    }
    if (Status c = PlanRepository::CheckGraphRecipe(r.workload, r.recipe); !c.ok()) {
      report->problems.push_back({where, c.message() + " (the engine ignores the row)"});
      continue;
    }
    if (std::vector<uint64_t> missing = MissingRecipeKernels(r, stored); !missing.empty()) {
      report->problems.push_back(
          {where, fmt::format("names {} kernel(s) its environment does not store ({:016x}{}); "
                              "ember-plans gc removes it",
                              missing.size(), missing.front(), missing.size() > 1 ? ", …" : "")});
    }
  }
}

}  // namespace

Status VerifyPlanDatabase(SqlSession& sql, VerificationReport* report,
                          std::optional<int> schema_version) {
  *report = VerificationReport();
  const int version = schema_version.value_or(LatestSchemaVersion());
  if (sql.backend() == "sqlite") {
    CheckSqliteStructure(sql, report);
  } else {
    CheckServerForeignKeys(sql, version, report);
  }
  CheckEnvironments(sql, report);
  CheckPlans(sql, report);
  CheckKernels(sql, report);
  if (version >= kDeviceFactsSchema) CheckFacts(sql, report);
  if (version >= kGraphRecipesSchema) CheckRecipes(sql, report);
  return Status::Ok();
}

}  // namespace ember
