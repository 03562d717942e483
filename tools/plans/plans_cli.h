// What every ember-plans command shares: the global options, the exit codes, opening the plan
// database (read-only for read commands), and printing errors. docs/ember-plans.md is the
// user's description of all of it.
//
// Note [Read commands never write]: stats, ls, show, dot, workloads, verify, gc --dry-run,
// export (its source) and quarantine ls open the database with PlanDbOptions::read_only
// (SQLITE_OPEN_READONLY: no creation, no migration, no journal-mode change, no checkpoint into
// the main file), so the file stays byte-identical even while another process writes to it
// through WAL. A database a writer is using is read from a consistent snapshot (one read
// transaction per query).
#pragma once

#include <memory>
#include <string>

#include "engine/core/status.h"
#include "store/repository/plan_repository.h"
#include "store/sqlite/plan_database.h"

namespace ember::plans {

// Exit codes (docs/ember-plans.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitProblems = 1;  // the command failed, or found problems (verify)
inline constexpr int kExitUnusable = 2;  // the database file cannot be used at all
inline constexpr int kExitUsage = 64;    // bad command line (EX_USAGE)

struct GlobalOptions {
  std::string db;  // empty: the engine's default (DefaultDatabasePath)
  bool json = false;
  bool allow_shared_writable = false;
};

// The plan database the engine would use here: [store] path from ember.toml / $EMBER_CONFIG,
// overridden by EMBER_PLAN_DB, else .ember/plans.db (engine/core/config.h). InvalidArgument
// when the configuration turns the database off.
Status DefaultDatabasePath(std::string* path);

// The path to use: --db, or DefaultDatabasePath.
Status DatabasePath(const GlobalOptions& global, std::string* path);

// Opens a SQLite file for writing, for what only a file has (vacuum); a server's URI is refused.
// It must exist (create: create it when missing), and is migrated to this binary's schema like
// the engine does.
Status OpenForWriting(const GlobalOptions& global, bool create, std::unique_ptr<PlanDatabase>* out);
// Opens the database read-only (Note [Read commands never write]) behind the repository
// interface: a SQLite file, or a PostgreSQL server (a postgresql:// URI) without migrating it.
// The commands use it on both alike (their SQL goes through PlanRepository::sql()).
Status OpenRepositoryForReading(const GlobalOptions& global, std::unique_ptr<PlanRepository>* out);
// The same for writing: the database must exist (create: a missing file is created; a server
// must be reachable either way), is migrated like the engine does, and must be writable
// (Unavailable with the reason otherwise).
Status OpenRepositoryForWriting(const GlobalOptions& global, std::unique_ptr<PlanRepository>* out,
                                bool create = false);

// Prints "ember-plans: <message>" on stderr (and, with --json, a {"error": ...} object on
// stdout) and returns the exit code for `status`: kExitUnusable for a file that cannot be
// opened as a plan database (not found, not a database, another program's, damaged header),
// kExitProblems otherwise.
int ReportOpenFailure(const GlobalOptions& global, const Status& status);
// Prints "ember-plans: <message>" on stderr and returns kExitProblems.
int ReportFailure(const Status& status);
// The same, and with --json an {"error": ..., "usable": true} object on stdout (the database
// opened; the command failed), as ReportOpenFailure prints for a database that did not.
int ReportFailure(const GlobalOptions& global, const Status& status);

}  // namespace ember::plans
