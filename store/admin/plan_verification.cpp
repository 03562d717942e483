#include "store/admin/plan_verification.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

#include "store/admin/kernel_inventory.h"
#include "store/admin/plan_inventory.h"
#include "store/codec/environment_fingerprint.h"
#include "store/codec/row_checksum.h"
#include "store/repository/plan_row_check.h"
#include "store/sqlite/column_encoding.h"
#include "store/sqlite/sqlite_statement.h"
#include "store/sqlite/sqlite_transaction.h"

namespace ember {

namespace {

// Rows of `sql` as text columns joined by ", "; a failure becomes a problem under `where`.
void CollectRows(SqliteDatabase& db, std::string_view sql, std::string_view where,
                 std::vector<std::string>* rows, VerificationReport* report) {
  Status s = RunTransaction(db, TransactionKind::kRead, where, [&]() -> Status {
    rows->clear();
    SqliteStatement stmt;
    if (Status r = db.Prepare(sql, where, &stmt); !r.ok()) return r;
    for (;;) {
      bool row = false;
      if (Status r = stmt.Step(&row); !r.ok()) return r;
      if (!row) return Status::Ok();
      rows->push_back(stmt.ColumnText(0));
    }
  });
  if (!s.ok()) report->problems.push_back({std::string(where), s.message()});
}

void CheckEnvironments(SqliteDatabase& db, VerificationReport* report) {
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

void CheckPlans(SqliteDatabase& db, VerificationReport* report) {
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
void CheckKernels(SqliteDatabase& db, VerificationReport* report) {
  int64_t checked = 0;
  std::vector<VerificationProblem> problems;
  std::vector<std::string> orphans;
  Status s = RunTransaction(db, TransactionKind::kRead, "reading kernels", [&]() -> Status {
    checked = 0;
    problems.clear();
    orphans.clear();
    std::vector<KernelRecord> kernels;
    if (Status r = ReadKernels(db, KernelFilter(), &kernels); !r.ok()) return r;
    std::map<KernelRowId, const KernelRecord*> by_id;
    for (const KernelRecord& k : kernels) by_id[k.id] = &k;
    SqliteStatement stmt;
    if (Status r = db.Prepare("SELECT id, binary, checksum FROM kernels ORDER BY id",
                              "reading kernels", &stmt);
        !r.ok()) {
      return r;
    }
    for (;;) {
      bool row = false;
      if (Status r = stmt.Step(&row); !r.ok()) return r;
      if (!row) break;
      ++checked;
      const uint64_t computed = KernelChecksum(stmt.ColumnBlob(1));
      if (computed == FromColumn(stmt.ColumnInt64(2))) continue;
      const auto k = by_id.find(stmt.ColumnInt64(0));
      problems.push_back({k != by_id.end() ? KernelLabel(*k->second)
                                           : fmt::format("kernel {}", stmt.ColumnInt64(0)),
                          fmt::format("checksum mismatch (stored 0x{:016x}, computed 0x{:016x})",
                                      FromColumn(stmt.ColumnInt64(2)), computed)});
    }
    for (const KernelRecord& k : kernels) CheckKernelLinks(k, &problems, &orphans);
    return Status::Ok();
  });
  report->kernels_checked += checked;
  report->problems.insert(report->problems.end(), problems.begin(), problems.end());
  report->orphan_kernels = std::move(orphans);
  if (!s.ok()) report->problems.push_back({"kernels", s.message()});
}

}  // namespace

Status VerifyPlanDatabase(SqliteDatabase& db, VerificationReport* report) {
  *report = VerificationReport();
  CollectRows(db, "PRAGMA integrity_check", "integrity_check", &report->integrity, report);
  if (!(report->integrity.size() == 1 && report->integrity[0] == "ok")) {
    for (const std::string& line : report->integrity) {
      report->problems.push_back({"integrity_check", line});
    }
  }
  std::vector<std::string> orphans;
  CollectRows(db,
              "SELECT \"table\" || ' row ' || COALESCE(rowid, '?') || ' refers to a missing ' || "
              "parent || ' row' FROM pragma_foreign_key_check",
              "foreign_key_check", &orphans, report);
  for (const std::string& line : orphans) report->problems.push_back({"foreign_key_check", line});
  CheckEnvironments(db, report);
  CheckPlans(db, report);
  CheckKernels(db, report);
  return Status::Ok();
}

}  // namespace ember
