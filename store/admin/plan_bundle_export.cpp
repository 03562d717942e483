// ember-plans export: writing a plan bundle (Note [Plan bundles], store/admin/plan_bundle.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "engine/core/clock.h"
#include "store/admin/bundle_contents.h"
#include "store/admin/bundle_kernels.h"
#include "store/admin/bundle_recipes.h"
#include "store/admin/plan_bundle.h"
#include "store/repository/plan_row_check.h"
#include "store/sqlite/migrations.h"
#include "store/sqlite/row_writes.h"
#include "store/sqlite/sqlite_sql_session.h"
#include "store/sqlite/sqlite_statement.h"
#include "store/sqlite/sqlite_transaction.h"
#include "store/sqlite/wal_companions.h"

namespace ember {

namespace {

Status InsertManifest(SqliteDatabase& db, const BundleManifest& m) {
  if (Status s = db.Exec("CREATE TABLE bundle_manifest (key TEXT PRIMARY KEY, value TEXT NOT "
                         "NULL)",
                         "creating the bundle manifest");
      !s.ok()) {
    return s;
  }
  const std::pair<const char*, std::string> entries[] = {
      {"format", m.format},
      {"format_version", std::to_string(m.format_version)},
      {"engine_version", m.engine_version},
      {"schema_version", std::to_string(m.schema_version)},
      {"created", std::to_string(m.created)},
      {"workload", m.workload},
      {"plans", std::to_string(m.plans)},
      {"environments", std::to_string(m.environments)},
      {"kernels", std::to_string(m.kernels)},
      {"recipes", std::to_string(m.recipes)},
      {"environment_ids", fmt::format("{}", fmt::join(m.environment_ids, " "))},
      {"source", m.source},
  };
  SqliteStatement insert;
  if (Status s = db.Prepare("INSERT INTO bundle_manifest (key, value) VALUES (?1, ?2)",
                            "writing the bundle manifest", &insert);
      !s.ok()) {
    return s;
  }
  for (const auto& [key, value] : entries) {
    insert.Reset();
    insert.BindText(1, key);
    insert.BindText(2, value);
    if (Status s = insert.Run(); !s.ok()) return s;
  }
  return Status::Ok();
}

// The environments the plans use, each under a new row id (*env_ids maps the source's to it),
// their stable ids appended to the manifest's.
Status WriteEnvironments(SqliteDatabase& db, const BundleContents& contents,
                         std::map<EnvironmentRowId, EnvironmentRowId>* env_ids,
                         BundleManifest* manifest) {
  std::set<EnvironmentRowId> used;
  for (const PlanRecord& p : contents.plans) used.insert(p.environment_id);
  SqliteStatement env;
  if (Status s = db.Prepare(
          "INSERT INTO environments (fingerprint, description, created) VALUES (?1, ?2, ?3)",
          "writing an environment", &env);
      !s.ok()) {
    return s;
  }
  for (const EnvironmentRecord& e : contents.environments) {
    if (!used.contains(e.id)) continue;
    env.Reset();
    env.BindText(1, e.fingerprint);
    env.BindText(2, e.description);
    env.BindInt64(3, e.created);
    if (Status s = env.Run(); !s.ok()) return s;
    (*env_ids)[e.id] = db.last_insert_rowid();
    manifest->environment_ids.push_back(e.fingerprint);
  }
  return Status::Ok();
}

// The plans, as stored in the source, with their triggers in position order; *plan_ids maps the
// source's row ids to the bundle's.
Status WritePlans(SqliteDatabase& db, const std::vector<PlanRecord>& plans,
                  const std::map<EnvironmentRowId, EnvironmentRowId>& env_ids,
                  std::map<PlanRowId, PlanRowId>* plan_ids) {
  SqliteStatement plan;
  if (Status s = db.Prepare(kInsertPlanColumns, "writing a plan", &plan); !s.ok()) return s;
  SqliteStatement trigger;
  if (Status s = db.Prepare(
          "INSERT INTO triggers (plan_id, position, kind, ops_blob) VALUES (?1, ?2, ?3, ?4)",
          "writing a trigger", &trigger);
      !s.ok()) {
    return s;
  }
  for (const PlanRecord& p : plans) {
    plan.Reset();
    BindPlanColumns(plan, {.environment_id = env_ids.at(p.environment_id),
                           .first_op_hash = p.first_op_hash,
                           .plan_key = p.plan_key,
                           .ops_blob = p.ops_blob,
                           .plan_blob = p.plan_blob,
                           .checksum = p.checksum,
                           .ops_bytes = p.ops_bytes,
                           .plan_bytes = p.plan_bytes,
                           .num_ops = p.num_ops,
                           .explore_ms = p.explore_ms,
                           .created = p.created,
                           .origin = p.origin});
    if (Status s = plan.Run(); !s.ok()) return s;
    const PlanRowId id = db.last_insert_rowid();
    (*plan_ids)[p.id] = id;
    for (size_t i = 0; i < p.triggers.size(); ++i) {
      trigger.Reset();
      trigger.BindInt64(1, id);
      trigger.BindInt64(2, static_cast<int64_t>(i));
      trigger.BindInt64(3, p.triggers[i].kind);
      trigger.BindBlob(4, p.triggers[i].ops_blob);
      if (Status s = trigger.Run(); !s.ok()) return s;
    }
  }
  return Status::Ok();
}

// Creates the bundle file and writes `contents` (plans already checked) and the manifest into
// it in one transaction; the manifest's counts and environment ids are filled in here, and
// *kernels_damaged counts the kernels left out for a failed checksum.
Status WriteBundle(const BundleContents& contents, BundleManifest* manifest,
                   const ExportOptions& export_options, int64_t* kernels_damaged,
                   int64_t* recipes_skipped) {
  std::unique_ptr<PlanDatabase> bundle;
  PlanDbOptions options{.path = export_options.bundle_path,
                        .allow_shared_writable = export_options.allow_shared_writable};
  if (Status s = PlanDatabase::Open(options, &bundle); !s.ok()) return s;
  SqliteDatabase& db = bundle->sqlite();
  manifest->schema_version = bundle->schema_version();
  Status s = RunTransaction(db, TransactionKind::kWrite, "writing the bundle", [&]() -> Status {
    std::map<EnvironmentRowId, EnvironmentRowId> env_ids;
    std::map<PlanRowId, PlanRowId> plan_ids;
    manifest->environment_ids.clear();
    if (Status r = WriteEnvironments(db, contents, &env_ids, manifest); !r.ok()) return r;
    if (Status r = WritePlans(db, contents.plans, env_ids, &plan_ids); !r.ok()) return r;
    manifest->kernels = 0;
    *kernels_damaged = 0;
    if (Status r = WriteBundleKernels(db, contents.kernels, env_ids, plan_ids, &manifest->kernels,
                                      kernels_damaged);
        !r.ok()) {
      return r;
    }
    SqliteSqlSession bundle_sql(db);
    if (Status r = WriteBundleRecipes(bundle_sql, contents.recipes, env_ids, &manifest->recipes,
                                      recipes_skipped);
        !r.ok()) {
      return r;
    }
    manifest->plans = static_cast<int64_t>(contents.plans.size());
    manifest->environments = static_cast<int64_t>(env_ids.size());
    return InsertManifest(db, *manifest);
  });
  if (!s.ok()) return s;
  // One self-contained file: no -wal to ship alongside.
  std::string mode;
  return db.QueryText("PRAGMA journal_mode = DELETE", "closing the bundle's journal", &mode);
}

}  // namespace

Status ExportBundle(PlanRepository& source, const ExportOptions& options, ExportResult* result) {
  *result = ExportResult();
  std::error_code ec;
  if (std::filesystem::exists(options.bundle_path, ec)) {
    return Status::InvalidArgument(fmt::format(
        "{} already exists; export writes a new bundle file (remove it or pick another name)",
        options.bundle_path));
  }
  BundleContents contents;
  const PlanFilter filter{.workload = options.workload, .status = "ok"};
  if (Status s = ReadBundleContents(source.sql(), source.schema_version(), filter, &contents);
      !s.ok()) {
    return s;
  }
  result->skipped_damaged = static_cast<int64_t>(std::erase_if(
      contents.plans, [](const PlanRecord& p) { return !CheckPlanRecord(p, nullptr).ok(); }));

  BundleManifest& m = result->manifest;
  m.format = kBundleFormat;
  m.format_version = kBundleFormatVersion;
  m.engine_version = options.engine_version;
  m.created = NowUnixMillis();
  m.workload = options.workload.value_or("");
  m.source = source.location();  // a server's without its password
  Status s = WriteBundle(contents, &m, options, &result->kernels_skipped_damaged,
                         &result->recipes_skipped);
  if (!s.ok()) RemoveDatabaseFiles(options.bundle_path);
  return s;
}

}  // namespace ember
