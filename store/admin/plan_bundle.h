// Plan bundles: a self-contained SQLite file that carries warmed plans from one plan database
// to others (`ember-plans export` / `import`; "ship this warmed database to the fleet").
//
// Note [Plan bundles]: a bundle is a plan database of its own — the same schema, created by the
// same embedded migrations, in journal mode DELETE so that it is one file — holding the
// exported plans with their triggers, the environments they belong to, and the compiled
// kernels linked to them; no workloads and no plan usage (budgets and hit counts belong to the
// machine that earned them). It also has a table of its own,
//     bundle_manifest(key TEXT PRIMARY KEY, value TEXT NOT NULL)
// with the keys: format ("ember-plan-bundle"), format_version ("1"), engine_version,
// schema_version, created (Unix ms), workload (the export filter; "" for every plan), plans,
// environments, kernels (counts), environment_ids (the stable ids of the environments, in row
// order, separated by spaces), source (the exported database's path).
// Import refuses a file without a manifest, of another format or a newer format version, whose
// schema version is newer than this binary's, or whose environments or plan count disagree with
// its manifest; it checks every plan as the engine would
// load it (CheckPlanRecord) and every kernel's checksum, and refuses the rows that fail, naming
// them. Accepted plans are published into the target under the "existing plan wins" rule
// (plan_repository.h): a plan the target already has keeps its row and gains the bundle's
// triggers; a new plan gets origin "import:<bundle file name>", no hits, and its exploration
// time. Everything a bundle adds commits in one transaction.
//
// Threading: one thread at a time per database.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "store/database/plan_database.h"

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
};

// Writes a new bundle from `source` (read only). On failure the partial bundle file is removed.
Status ExportBundle(PlanDatabase& source, const ExportOptions& options, ExportResult* result);

struct ImportOptions {
  std::string bundle_path;
  // Accept a bundle file other users can write (Note [Plan database trust]).
  bool allow_shared_writable = false;
};

struct ImportRefusal {
  std::string row;  // "plan 7", "kernel 3", "environment 2"
  std::string reason;
};

struct ImportResult {
  BundleManifest manifest;
  int64_t inserted = 0;  // new plans (a quarantined local row repaired counts here)
  int64_t existing = 0;  // the target already had them; their triggers were merged
  int64_t refused = 0;   // failed a check, or collided with another plan's key
  size_t triggers_added = 0;
  size_t kernels_added = 0;
  std::vector<ImportRefusal> refusals;
};

// Reads a bundle's manifest (the database must be a bundle).
Status ReadBundleManifest(SqliteDatabase& bundle, BundleManifest* out);

// Imports the bundle at options.bundle_path into `target` (Note [Plan bundles]).
Status ImportBundle(PlanDatabase& target, const ImportOptions& options, ImportResult* result);

}  // namespace ember
