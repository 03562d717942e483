// Plan bundles: a self-contained SQLite file that carries warmed plans from one plan database
// to others (`ember-plans export` / `import`; "ship this warmed database to the fleet").
//
// Note [Plan bundles]: a bundle is a plan database of its own — the same schema, created by the
// same embedded migrations, in journal mode DELETE so that it is one file — holding the
// exported plans with their triggers, the environments they belong to, and the compiled
// kernels those plans use (plan_kernels, Note [Kernel links]) with their name, source, options
// and links, and from schema 6 on the graph recipes that launch only kernels the bundle carries
// (store/admin/bundle_recipes.h); no workloads, no plan usage and no device facts (budgets and
// hit counts belong to the machine that earned them; facts are measured again where they are
// needed). It also has a table of its own,
//     bundle_manifest(key TEXT PRIMARY KEY, value TEXT NOT NULL)
// with the keys: format ("ember-plan-bundle"), format_version ("1"), engine_version,
// schema_version, created (Unix ms), workload (the export filter; "" for every plan), plans,
// environments, kernels, recipes (counts; recipes only from schema 6 on, a bundle without it
// has none), environment_ids (the stable ids of the environments, in row order, separated by
// spaces), source (the exported database's path).
// Import refuses a file without a manifest, of another format or a newer format version, whose
// schema version is newer than this binary's, or whose environments, plan count or kernel
// count (or recipe count) disagree with its manifest; it checks every plan as the engine would load
// it (CheckPlanRecord) and refuses the rows that fail, naming them. Accepted plans are published
// into the target under the "existing plan wins" rule (plan_repository.h): a plan the target
// already has keeps its row and gains the bundle's triggers; a new plan gets origin
// "import:<bundle file name>", no hits, and its exploration time. The bundle's kernels are
// imported only when the caller trusts them (Note [Bundle kernels are code],
// store/admin/bundle_kernels.h). Everything a bundle adds commits in one transaction.
//
// Threading: one thread at a time per database.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "store/repository/plan_repository.h"
#include "store/sqlite/plan_database.h"

namespace ember {

inline constexpr char kBundleFormat[] = "ember-plan-bundle";
inline constexpr int kBundleFormatVersion = 1;

struct BundleManifest {
  std::string format;
  int format_version = 0;
  std::string engine_version;
  int schema_version = 0;
  int64_t created = 0;
  std::string workload;  // empty: every plan
  int64_t plans = 0;
  int64_t environments = 0;
  int64_t kernels = 0;
  int64_t recipes = 0;                       // graph recipes (0 in a bundle of schema 5 or older)
  std::vector<std::string> environment_ids;  // stable ids ("env-…")
  std::string source;
};

struct ExportOptions {
  std::string bundle_path;  // must not exist yet
  std::optional<std::string> workload;
  std::string engine_version;
  // Accept a bundle directory other users can write (Note [Plan database trust]).
  bool allow_shared_writable = false;
};

struct ExportResult {
  BundleManifest manifest;
  // 'ok' plans left out because they failed CheckPlanRecord (`ember-plans verify` lists why).
  int64_t skipped_damaged = 0;
  // Kernels of exported plans left out because their checksum failed.
  int64_t kernels_skipped_damaged = 0;
  // Graph recipes left out: damaged, not a tape the engine uses, or launching a kernel the
  // bundle does not carry (store/admin/bundle_recipes.h).
  int64_t recipes_skipped = 0;
};

// Writes a new bundle from `source` (read only; a SQLite file or a PostgreSQL server). On
// failure the partial bundle file is removed.
Status ExportBundle(PlanRepository& source, const ExportOptions& options, ExportResult* result);

struct ImportOptions {
  std::string bundle_path;
  // Accept a bundle file other users can write (Note [Plan database trust]).
  bool allow_shared_writable = false;
  // Import the bundle's compiled kernels too (Note [Bundle kernels are code]).
  bool trust_kernels = false;
};

struct ImportRefusal {
  std::string row;  // "plan 7", "kernel 3 (name, sm_90)", "environment 2"
  std::string reason;
};

struct ImportResult {
  BundleManifest manifest;
  int64_t inserted = 0;  // new plans (a quarantined local row repaired counts here)
  int64_t existing = 0;  // the target already had them; their triggers were merged
  int64_t refused = 0;   // plans that failed a check, or collided with another plan's key
  size_t triggers_added = 0;
  // Each kernel of the bundle is counted once, in one of these (Note [Bundle kernels are code]).
  size_t kernels_added = 0;      // new kernel rows
  size_t kernels_existing = 0;   // the target had one of the same key: that row kept and linked
  size_t kernels_untrusted = 0;  // not imported: the caller did not trust them
  size_t kernels_refused = 0;    // failed a check (named in refusals)
  // Each graph recipe of the bundle is counted once, in one of these (bundle_recipes.h).
  size_t recipes_added = 0;
  size_t recipes_existing = 0;  // the target has one of the same key: that row kept
  size_t recipes_skipped = 0;   // damaged, not a tape, or a kernel the target does not store
  std::vector<ImportRefusal> refusals;
};

// Reads a bundle's manifest (the database must be a bundle).
Status ReadBundleManifest(SqliteDatabase& bundle, BundleManifest* out);

// Imports the bundle at options.bundle_path into `target` (Note [Plan bundles]), a SQLite file or
// a PostgreSQL server: the rows are written with the target's own row writes
// (PlanRepository::WritePlanRow and the others), so a server's running hosts hear of the
// imported plans as of any other publication.
Status ImportBundle(PlanRepository& target, const ImportOptions& options, ImportResult* result);

}  // namespace ember
