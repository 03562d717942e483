// ember-plans import: reading, checking and merging a plan bundle (Note [Plan bundles],
// store/admin/plan_bundle.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "engine/core/clock.h"
#include "store/admin/bundle_contents.h"
#include "store/admin/bundle_kernels.h"
#include "store/admin/bundle_recipes.h"
#include "store/admin/plan_bundle.h"
#include "store/codec/environment_fingerprint.h"
#include "store/repository/column_encoding.h"
#include "store/repository/plan_row_check.h"
#include "store/sqlite/migrations.h"
#include "store/sqlite/sqlite_sql_session.h"
#include "store/sqlite/sqlite_statement.h"
#include "store/sqlite/sqlite_transaction.h"

namespace ember {

namespace {

// A bundle that PlanDatabase::Open refused, named as what it is. The opener is the plan
// database's (store/sqlite/plan_database.h), so its messages call the file a plan database and
// advise configuring another database path; the reason itself (missing, empty, truncated, not
// SQLite, untrusted) is kept. issue 13, part 7.
Status UnreadableBundle(const std::string& path, const Status& opened) {
  std::string text = opened.message();
  auto replace = [&text](const std::string& from, const std::string& to) {
    for (size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size())) {
      text.replace(at, from.size(), to);
    }
  };
  replace("; ember does not modify it: move it away or configure another plan database path",
          "; ember does not modify it: export the bundle again");
  replace("plan database path " + path, path);
  replace("plan database " + path, path);
  if (text.starts_with(path)) {
    text = "plan bundle " + text;
  } else {
    text = fmt::format("plan bundle {}: {}", path, text);
  }
  switch (opened.code()) {
    case Status::Code::kNotFound: return Status::NotFound(text);
    case Status::Code::kCorruption: return Status::Corruption(text);
    case Status::Code::kIoError: return Status::IoError(text);
    case Status::Code::kUnavailable: return Status::Unavailable(text);
    case Status::Code::kResourceExhausted: return Status::ResourceExhausted(text);
    case Status::Code::kOk:
    case Status::Code::kInvalidArgument: break;
  }
  return Status::InvalidArgument(text);
}

// The target's row for a bundle environment, added when new. *id stays empty, with the reason
// in *refusal, when the bundle's stable id is not the hash of its description or the target
// keeps another description under it.
Status MatchEnvironment(SqlSession& sql, const EnvironmentRecord& e, int64_t now,
                        std::optional<EnvironmentRowId>* id, std::string* refusal) {
  id->reset();
  if (EnvironmentStableIdOfText(e.description) != e.fingerprint) {
    *refusal = "its stable id is not the hash of its description";
    return Status::Ok();
  }
  if (Status s = sql.Exec(
          "INSERT INTO environments (fingerprint, description, created) VALUES (?1, ?2, ?3) "
          "ON CONFLICT (fingerprint) DO NOTHING",
          {SqlValue(e.fingerprint), SqlValue(e.description), SqlValue(now)},
          "adding an environment");
      !s.ok()) {
    return s;
  }
  bool found = false;
  std::string description;
  if (Status s = sql.Query("SELECT id, description FROM environments WHERE fingerprint = ?1",
                           {SqlValue(e.fingerprint)}, "finding an environment",
                           [&](const SqlRow& row) {
                             found = true;
                             *id = row.Int64(0);
                             description = row.Text(1);
                           });
      !s.ok()) {
    return s;
  }
  if (!found || description != e.description) {
    id->reset();
    *refusal = "the target stores another description under the same stable id";
  }
  return Status::Ok();
}

// Opens the bundle read-only, refusing a file that is no plan database this ember can read.
Status OpenBundle(const ImportOptions& options, std::unique_ptr<PlanDatabase>* bundle) {
  PlanDbOptions bundle_options{.path = options.bundle_path,
                               .read_only = true,
                               .create = false,
                               .allow_shared_writable = options.allow_shared_writable};
  if (Status s = PlanDatabase::Open(bundle_options, bundle); !s.ok()) {
    return UnreadableBundle(options.bundle_path, s);
  }
  if ((*bundle)->schema_version() > LatestSchemaVersion()) {
    return Status::InvalidArgument(fmt::format(
        "bundle {} was written with plan-database schema version {}, newer than this ember's "
        "{}; import it with a newer ember-plans",
        options.bundle_path, (*bundle)->schema_version(), LatestSchemaVersion()));
  }
  return Status::Ok();
}

// Refuses a manifest of a newer format or schema than this ember's.
Status CheckManifestVersions(const std::string& path, const BundleManifest& m) {
  if (m.format_version > kBundleFormatVersion) {
    return Status::InvalidArgument(fmt::format(
        "bundle {} has format version {}, newer than this ember's {}; import it with a newer "
        "ember-plans",
        path, m.format_version, kBundleFormatVersion));
  }
  if (m.schema_version > LatestSchemaVersion()) {
    return Status::InvalidArgument(fmt::format(
        "bundle {} declares plan-database schema version {}, newer than this ember's {}; "
        "import it with a newer ember-plans",
        path, m.schema_version, LatestSchemaVersion()));
  }
  return Status::Ok();
}

// Refuses a bundle whose environments, plan count or kernel count are not what its manifest
// lists.
Status CheckAgainstManifest(const std::string& path, const BundleManifest& m,
                            const BundleContents& contents) {
  std::vector<std::string> stored_ids;
  for (const EnvironmentRecord& e : contents.environments) stored_ids.push_back(e.fingerprint);
  const auto plans = static_cast<int64_t>(contents.plans.size());
  const auto kernels = static_cast<int64_t>(contents.kernels.size());
  const auto recipes = static_cast<int64_t>(contents.recipes.size());
  if (stored_ids != m.environment_ids || plans != m.plans || kernels != m.kernels ||
      recipes != m.recipes) {
    return Status::Corruption(fmt::format(
        "bundle {} does not hold what its manifest lists (manifest: {} plan(s), {} kernel(s), "
        "{} recipe(s), environments [{}]; file: {} plan(s), {} kernel(s), {} recipe(s), "
        "environments [{}]); export it again",
        path, m.plans, m.kernels, m.recipes, fmt::join(m.environment_ids, " "), plans, kernels,
        recipes, fmt::join(stored_ids, " ")));
  }
  return Status::Ok();
}

// The bundle's manifest and its 'ok' rows, once the file, its versions and its rows are found
// importable; the bundle is closed again before returning.
Status ReadBundle(const ImportOptions& options, BundleManifest* manifest,
                  BundleContents* contents) {
  std::unique_ptr<PlanDatabase> bundle;
  if (Status s = OpenBundle(options, &bundle); !s.ok()) return s;
  if (Status s = ReadBundleManifest(bundle->sqlite(), manifest); !s.ok()) return s;
  if (Status s = CheckManifestVersions(options.bundle_path, *manifest); !s.ok()) return s;
  SqliteSqlSession bundle_sql(bundle->sqlite());
  if (Status s = ReadBundleContents(bundle_sql, bundle->schema_version(),
                                    PlanFilter{.status = "ok"}, contents);
      !s.ok()) {
    return s;
  }
  bundle.reset();
  return CheckAgainstManifest(options.bundle_path, *manifest, *contents);
}

// Which plans pass CheckPlanRecord; each one that does not is refused, named, in *refusals. The
// plans that pass are decoded into *decoded by bundle row id (their kernels are judged against
// them).
std::vector<bool> CheckBundlePlans(const std::vector<PlanRecord>& plans,
                                   std::vector<ImportRefusal>* refusals,
                                   std::map<PlanRowId, ExecutionPlan>* decoded) {
  std::vector<bool> plan_ok(plans.size(), false);
  for (size_t i = 0; i < plans.size(); ++i) {
    ExecutionPlan plan;
    if (Status s = CheckPlanRecord(plans[i], &plan); !s.ok()) {
      refusals->push_back({fmt::format("plan {}", plans[i].id), s.message()});
    } else {
      plan_ok[i] = true;
      (*decoded)[plans[i].id] = std::move(plan);
    }
  }
  return plan_ok;
}

// The target's rows for the bundle's environments (*env_ids maps the bundle's row ids to them);
// each refused environment is named in result->refusals.
Status MatchEnvironments(SqlSession& db, const std::vector<EnvironmentRecord>& environments,
                         int64_t now, std::map<EnvironmentRowId, EnvironmentRowId>* env_ids,
                         ImportResult* result) {
  for (const EnvironmentRecord& e : environments) {
    std::optional<EnvironmentRowId> id;
    std::string refusal;
    if (Status s = MatchEnvironment(db, e, now, &id, &refusal); !s.ok()) return s;
    if (id.has_value()) {
      (*env_ids)[e.id] = *id;
    } else {
      result->refusals.push_back({fmt::format("environment {}", e.id), refusal});
    }
  }
  return Status::Ok();
}

// Publishes one checked bundle plan into the target under the "existing plan wins" rule, then
// its triggers; (*plan_ids)[p.id] becomes the target's row. A plan whose environment was
// refused, or whose key a local plan with other ops holds, is refused.
Status ImportPlan(PlanRepository& target, const PlanRecord& p,
                  const std::map<EnvironmentRowId, EnvironmentRowId>& env_ids,
                  const std::string& origin, int64_t now, std::map<PlanRowId, PlanRowId>* plan_ids,
                  ImportResult* result) {
  const auto env = env_ids.find(p.environment_id);
  if (env == env_ids.end()) {
    ++result->refused;
    result->refusals.push_back({fmt::format("plan {}", p.id), "its environment was refused"});
    return Status::Ok();
  }
  NewPlan plan{.first_op_hash = FromColumn(p.first_op_hash),
               .plan_key = *PlanKeyFromBytes(p.plan_key),
               .ops_blob = p.ops_blob,
               .plan_blob = p.plan_blob,
               .num_ops = static_cast<uint32_t>(p.num_ops),
               .explore_ms = p.explore_ms,
               .origin = origin};
  InsertResult inserted;
  if (Status s = target.WritePlanRow(env->second, plan, now, &inserted); !s.ok()) return s;
  switch (inserted.outcome) {
    case InsertOutcome::kInserted:
    case InsertOutcome::kReplacedQuarantined:
      ++result->inserted;
      if (Status s = target.WriteMissColumns(inserted.plan_id, plan); !s.ok()) return s;
      break;
    case InsertOutcome::kExisting: ++result->existing; break;
    case InsertOutcome::kKeyCollision:
      ++result->refused;
      result->refusals.push_back(
          {fmt::format("plan {}", p.id),
           fmt::format("its key is taken by local plan {} with other ops", inserted.plan_id)});
      return Status::Ok();
  }
  (*plan_ids)[p.id] = inserted.plan_id;
  return target.WriteTriggerRows(inserted.plan_id, p.triggers, &result->triggers_added);
}

}  // namespace

Status ReadBundleManifest(SqliteDatabase& bundle, BundleManifest* out) {
  std::map<std::string, std::string> values;
  bool has_table = false;
  Status s = RunTransaction(
      bundle, TransactionKind::kRead, "reading the bundle manifest", [&]() -> Status {
        values.clear();
        std::string count;
        if (Status r = bundle.QueryText(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = "
                "'bundle_manifest'",
                "reading the bundle manifest", &count);
            !r.ok()) {
          return r;
        }
        has_table = count == "1";
        if (!has_table) return Status::Ok();
        SqliteStatement stmt;
        if (Status r = bundle.Prepare("SELECT key, value FROM bundle_manifest",
                                      "reading the bundle manifest", &stmt);
            !r.ok()) {
          return r;
        }
        for (;;) {
          bool row = false;
          if (Status r = stmt.Step(&row); !r.ok()) return r;
          if (!row) return Status::Ok();
          values[stmt.ColumnText(0)] = stmt.ColumnText(1);
        }
      });
  if (!s.ok()) return s;
  if (!has_table) {
    return Status::InvalidArgument(fmt::format(
        "{} is a plan database, not a plan bundle (it has no bundle_manifest table); make one "
        "with `ember-plans --db {} export FILE`",
        bundle.path(), bundle.path()));
  }
  auto number = [&](const char* key, int64_t* into) -> Status {
    const std::string& text = values[key];
    try {
      size_t used = 0;
      *into = std::stoll(text, &used);
      if (used == text.size()) return Status::Ok();
    } catch (const std::exception&) {
    }
    return Status::Corruption(
        fmt::format("bundle {}: manifest entry '{}' should be an integer, "
                    "got '{}'",
                    bundle.path(), key, text));
  };
  *out = BundleManifest();
  out->format = values["format"];
  if (out->format != kBundleFormat) {
    return Status::InvalidArgument(
        fmt::format("{} is not an ember plan bundle (format '{}', "
                    "expected '{}')",
                    bundle.path(), out->format, kBundleFormat));
  }
  int64_t format_version = 0;
  int64_t schema_version = 0;
  for (const auto& [key, into] :
       {std::pair{"format_version", &format_version}, std::pair{"schema_version", &schema_version},
        std::pair{"created", &out->created}, std::pair{"plans", &out->plans},
        std::pair{"environments", &out->environments}, std::pair{"kernels", &out->kernels}}) {
    if (Status r = number(key, into); !r.ok()) return r;
  }
  // Written from schema 6 on; a bundle without the entry has no recipes.
  if (values.contains("recipes")) {
    if (Status r = number("recipes", &out->recipes); !r.ok()) return r;
  }
  out->format_version = static_cast<int>(format_version);
  out->schema_version = static_cast<int>(schema_version);
  out->engine_version = values["engine_version"];
  out->workload = values["workload"];
  out->source = values["source"];
  std::istringstream ids(values["environment_ids"]);
  for (std::string id; ids >> id;) out->environment_ids.push_back(id);
  return Status::Ok();
}

Status ImportBundle(PlanRepository& target, const ImportOptions& options, ImportResult* result) {
  *result = ImportResult();
  if (Status s = target.CheckWritable("importing a bundle"); !s.ok()) return s;
  BundleContents contents;
  if (Status s = ReadBundle(options, &result->manifest, &contents); !s.ok()) return s;
  const std::string origin =
      "import:" + std::filesystem::path(options.bundle_path).filename().string();
  std::vector<ImportRefusal> checked_refusals;
  std::map<PlanRowId, ExecutionPlan> decoded;
  const std::vector<bool> plan_ok = CheckBundlePlans(contents.plans, &checked_refusals, &decoded);

  SqlSession& sql = target.sql();
  return sql.WriteTransaction("importing a bundle", [&]() -> Status {
    const BundleManifest manifest = result->manifest;
    *result = ImportResult();
    result->manifest = manifest;
    result->refusals = checked_refusals;
    result->refused = static_cast<int64_t>(checked_refusals.size());
    const int64_t now = NowUnixMillis();
    std::map<EnvironmentRowId, EnvironmentRowId> env_ids;
    if (Status r = MatchEnvironments(sql, contents.environments, now, &env_ids, result); !r.ok()) {
      return r;
    }
    std::map<PlanRowId, PlanRowId> plan_ids;
    for (size_t i = 0; i < contents.plans.size(); ++i) {
      if (!plan_ok[i]) continue;
      if (Status r = ImportPlan(target, contents.plans[i], env_ids, origin, now, &plan_ids, result);
          !r.ok()) {
        return r;
      }
    }
    if (Status r = ImportBundleKernels(target, contents.kernels, env_ids, plan_ids, decoded,
                                       options.trust_kernels, now, result);
        !r.ok()) {
      return r;
    }
    return ImportBundleRecipes(sql, contents.recipes, env_ids, now, result);
  });
}

}  // namespace ember
