// VerifyPlanDatabase: a full health check of an opened plan database, for `ember-plans verify`.
//
// Checks, in order, and keeps going after a problem so that one run lists them all:
//   1. on a SQLite file, PRAGMA integrity_check (its own structure: pages, indexes,
//      constraints); on a PostgreSQL server nothing — its pages are the server's to check
//      (pg_amcheck), and report.integrity_checked stays false;
//   2. foreign keys: PRAGMA foreign_key_check on a file; on a server one query per key of the
//      schema (a server enforces them as rows are written, except in a session that turned the
//      checks off, as pg_restore --disable-triggers does). Orphan triggers, plan usage, plans
//      without an environment...;
//   3. each environment: its stable id is the hash of its description (Note [Environment
//      fingerprint]);
//   4. each plan with status 'ok': CheckPlanRecord (checksum, decoding, ValidatePlan, keys and
//      sizes) — exactly what the engine would refuse to load;
//   5. each kernel: its checksum (Note [Row checksums]); that the plans using it are of its
//      environment (Note [Kernel links], store/admin/kernel_inventory.h); and whether any plan
//      uses it. An orphan is listed, not a problem: the engine stores the kernels of an unfused
//      run (exploration capped) linked to no plan, and a plan evicted by hand leaves its kernels
//      behind; both are healthy files that `ember-plans gc` makes smaller;
//   6. from schema 5 on, each device fact: its checksum (the engine skips a fact that fails it
//      and measures again, Note [Device facts]; verify names it);
//   7. from schema 6 on, each graph recipe (Note [Graph recipes]): its checksum, that its body
//      is a tape whose hash is its key and whose kernels are its list (what the engine would
//      refuse), and that its environment stores every kernel it names (`ember-plans gc`
//      removes one that names a kernel no longer stored).
// Quarantined rows are counted, not reported as problems: the engine already set them aside
// (`ember-plans quarantine ls` shows why).
//
// Reads only (one read transaction per step); never modifies the database.
// Threading: as the SqlSession it is given.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "store/repository/sql_session.h"

namespace ember {

struct VerificationProblem {
  std::string where;  // "integrity_check", "foreign_key_check", "plan 7", "environment 2",
                      // "kernel 3 (name, sm_90)", ...
  std::string what;
};

struct VerificationReport {
  bool integrity_checked = false;      // false on a server (step 1)
  std::vector<std::string> integrity;  // the integrity_check lines ("ok" when healthy)
  int64_t environments_checked = 0;
  int64_t plans_checked = 0;
  int64_t triggers_checked = 0;
  int64_t kernels_checked = 0;
  int64_t facts_checked = 0;
  int64_t recipes_checked = 0;
  int64_t quarantined = 0;
  std::vector<VerificationProblem> problems;
  std::vector<std::string> orphan_kernels;  // KernelLabel of each kernel no plan uses

  bool healthy() const { return problems.empty(); }
};

// Fills *report. Every problem found in the file goes to report->problems (even a step that
// could not run at all, such as a table SQLite cannot read); the returned Status is only for
// the caller's own mistakes and is OK otherwise.
// `schema_version`: the database's (PlanRepository::schema_version), which says which tables
// there are to check; nullopt: this binary's newest.
Status VerifyPlanDatabase(SqlSession& sql, VerificationReport* report,
                          std::optional<int> schema_version = std::nullopt);

}  // namespace ember
