#include "store/admin/plan_verification.h"

#include <fmt/format.h>

#include <functional>

#include "store/sqlite/column_encoding.h"
#include "store/codec/environment_fingerprint.h"
#include "store/admin/plan_inventory.h"
#include "store/repository/plan_row_check.h"
#include "store/codec/row_checksum.h"
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

void CheckKernels(SqliteDatabase& db, VerificationReport* report) {
  Status s = RunTransaction(db, TransactionKind::kRead, "reading kernels", [&]() -> Status {
    SqliteStatement stmt;
    if (Status r = db.Prepare("SELECT id, binary, checksum FROM kernels ORDER BY id",
                              "reading kernels", &stmt);
        !r.ok()) {
      return r;
    }
    for (;;) {
      bool row = false;
      if (Status r = stmt.Step(&row); !r.ok()) return r;
      if (!row) return Status::Ok();
      ++report->kernels_checked;
      const uint64_t computed = KernelChecksum(stmt.ColumnBlob(1));
      if (computed != FromColumn(stmt.ColumnInt64(2))) {
        report->problems.push_back(
            {fmt::format("kernel {}", stmt.ColumnInt64(0)),
             fmt::format("checksum mismatch (stored 0x{:016x}, computed 0x{:016x})",
                         FromColumn(stmt.ColumnInt64(2)), computed)});
      }
    }
  });
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
