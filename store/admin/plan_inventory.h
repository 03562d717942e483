// Read-only queries over a whole plan database, for inspection tools (`ember-plans stats`, `ls`,
// `show`, `workloads`, `facts`, `quarantine ls`) and for the store's maintenance code
// (verification, gc, bundles). The engine's own lookups stay in PlanRepository; these read
// everything, with the blobs, so that a caller can decode and judge each row itself.
//
// Every function reads inside one read transaction (a consistent snapshot, even while another
// process writes through WAL), writes nothing, and returns a Status for every database problem
// (a damaged page is Corruption) without throwing or aborting.
//
// Threading: as the SqliteDatabase it is given — one thread at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/status.h"
#include "store/admin/kernel_inventory.h"
#include "store/repository/plan_rows.h"
#include "store/sqlite/plan_database.h"
#include "store/sqlite/sqlite_database.h"

namespace ember {

// Counts and sizes of the whole database.
struct DatabaseSummary {
  int schema_version = 0;   // the newest migration recorded in the file
  int64_t plans = 0;        // every row of `plans`, quarantined ones included
  int64_t quarantined = 0;  // rows with status 'quarantined'
  int64_t triggers = 0;
  int64_t workloads = 0;
  int64_t environments = 0;
  int64_t kernels = 0;
  int64_t plan_bytes = 0;    // SUM(ops_bytes + plan_bytes) over every plan
  int64_t kernel_bytes = 0;  // SUM(length(binary))
  int64_t file_bytes = 0;    // SqlSession::StoredBytes: the file without its WAL, or the tables
  int64_t plan_hits = 0;     // SUM(plans.hits)
  int64_t workload_hits = 0;
  int64_t workload_misses = 0;
  int64_t unfused_runs = 0;
  int64_t explorations = 0;                      // SUM(workloads.explorations)
  int64_t device_facts = 0;                      // rows of device_facts (0 before schema 5)
  int64_t graph_recipes = 0;                     // rows of graph_recipes (0 before schema 6)
  std::vector<KernelArchCount> kernels_by_arch;  // per (arch, compiler version)
};

// On either database (sql_session.h): a SQLite file or a PostgreSQL server.
Status ReadSummary(SqlSession& sql, int schema_version, DatabaseSummary* out);

// On either database (sql_session.h); the SqliteDatabase forms are for the callers that still
// read SQLite only (they run the same queries through a SqliteSqlSession).
Status ListEnvironments(SqlSession& sql, std::vector<EnvironmentRecord>* out);
Status ListEnvironments(SqliteDatabase& db, std::vector<EnvironmentRecord>* out);

// The ids of the environments `selector` names: a row id ("3"), a full stable id, or a unique
// prefix of one ("env-1a2b"). NotFound when none matches, InvalidArgument when a prefix is
// ambiguous.
Status ResolveEnvironment(SqlSession& sql, std::string_view selector, EnvironmentRowId* out);
Status ResolveEnvironment(SqliteDatabase& db, std::string_view selector, EnvironmentRowId* out);
// The same for an optional selector: no selector, no environment (every one).
Status ResolveEnvironment(SqlSession& sql, const std::optional<std::string>& selector,
                          std::optional<EnvironmentRowId>* out);

struct PlanFilter {
  std::optional<EnvironmentRowId> environment;
  // Only plans this workload (by name, any environment) has used (plan_usage).
  std::optional<std::string> workload;
  // Which statuses: "ok" only, "quarantined" only, or both (nullopt).
  std::optional<std::string> status;
  // Leave ops_blob, plan_blob and the triggers out (sizes and counters only).
  bool metadata_only = false;
};

// Plans by id. On either database; the SqliteDatabase form runs the same query on a file.
Status ListPlans(SqlSession& sql, const PlanFilter& filter, std::vector<PlanRecord>* out);
Status ListPlans(SqliteDatabase& db, const PlanFilter& filter, std::vector<PlanRecord>* out);
// The plan with row id `id`, whatever its status. NotFound when there is none.
Status ReadPlan(SqlSession& sql, PlanRowId id, PlanRecord* out);
Status ReadPlan(SqliteDatabase& db, PlanRowId id, PlanRecord* out);

// The first schema version with device_facts (migrations/0005_device_facts.sql).
inline constexpr int kDeviceFactsSchema = 5;

// Device facts (Note [Device facts], store/persistent_facts.h) by environment id, then name,
// damaged rows included (checksum_ok false); `environment` narrows to one. On either database.
// REQUIRES: schema version >= kDeviceFactsSchema.
Status ListDeviceFacts(SqlSession& sql, std::optional<EnvironmentRowId> environment,
                       std::vector<DeviceFactRecord>* out);

// Workloads by name, then environment id; `environment` narrows to one. On either database.
Status ListWorkloads(SqlSession& sql, std::optional<EnvironmentRowId> environment,
                     std::vector<WorkloadRecord>* out);

}  // namespace ember
