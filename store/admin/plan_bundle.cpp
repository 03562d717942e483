#include "store/admin/plan_bundle.h"

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
#include "store/sqlite/column_encoding.h"
#include "store/codec/environment_fingerprint.h"
#include "store/database/migrations.h"
#include "store/admin/plan_inventory.h"
#include "store/repository/plan_row_check.h"
#include "store/repository/row_writes.h"
#include "store/codec/row_checksum.h"
#include "store/sqlite/sqlite_statement.h"
#include "store/sqlite/sqlite_transaction.h"

namespace ember {

namespace {

struct KernelRecord {
  KernelRowId id = 0;
  EnvironmentRowId environment_id = 0;
  PlanRowId plan_id = 0;
  KernelKey key;
  Blob binary;
  int64_t checksum = 0;
  int64_t created = 0;
};

// A bundle that PlanDatabase::Open refused, named as what it is. The opener is the plan
// database's (store/database/plan_database.h), so its messages call the file a plan database and advise
// configuring another database path; the reason itself (missing, empty, truncated, not SQLite,
// untrusted) is kept. issue 13, part 7.
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

// The kernels linked to a plan (plan_id not NULL).
Status ReadPlanKernels(SqliteDatabase& db, std::vector<KernelRecord>* out) {
  return RunTransaction(db, TransactionKind::kRead, "reading kernels", [&]() -> Status {
    out->clear();
    SqliteStatement stmt;
    if (Status s = db.Prepare(
            "SELECT id, environment_id, plan_id, source_hash, arch, compiler_version, binary, "
            "checksum, created FROM kernels WHERE plan_id IS NOT NULL ORDER BY id",
            "reading kernels", &stmt);
        !s.ok()) {
      return s;
    }
    for (;;) {
      bool row = false;
      if (Status s = stmt.Step(&row); !s.ok()) return s;
      if (!row) return Status::Ok();
      out->push_back({.id = stmt.ColumnInt64(0),
                      .environment_id = stmt.ColumnInt64(1),
                      .plan_id = stmt.ColumnInt64(2),
                      .key = {stmt.ColumnBlob(3), stmt.ColumnText(4), stmt.ColumnText(5)},
                      .binary = stmt.ColumnBlob(6),
                      .checksum = stmt.ColumnInt64(7),
                      .created = stmt.ColumnInt64(8)});
    }
  });
}

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

struct ExportContents {
  std::vector<EnvironmentRecord> environments;
  std::vector<PlanRecord> plans;  // checked
  std::vector<KernelRecord> kernels;
};

Status WriteBundle(const ExportContents& contents, BundleManifest* manifest,
                   const ExportOptions& export_options) {
  std::unique_ptr<PlanDatabase> bundle;
  PlanDbOptions options{.path = export_options.bundle_path,
                        .allow_shared_writable = export_options.allow_shared_writable};
  if (Status s = PlanDatabase::Open(options, &bundle); !s.ok()) return s;
  SqliteDatabase& db = bundle->sqlite();
  manifest->schema_version = bundle->schema_version();
  Status s = RunTransaction(db, TransactionKind::kWrite, "writing the bundle", [&]() -> Status {
    std::map<EnvironmentRowId, EnvironmentRowId> env_ids;
    std::map<PlanRowId, PlanRowId> plan_ids;
    std::set<EnvironmentRowId> used;
    for (const PlanRecord& p : contents.plans) used.insert(p.environment_id);
    SqliteStatement env;
    if (Status r = db.Prepare(
            "INSERT INTO environments (fingerprint, description, created) VALUES (?1, ?2, ?3)",
            "writing an environment", &env);
        !r.ok()) {
      return r;
    }
    for (const EnvironmentRecord& e : contents.environments) {
      if (!used.contains(e.id)) continue;
      env.Reset();
      env.BindText(1, e.fingerprint);
      env.BindText(2, e.description);
      env.BindInt64(3, e.created);
      if (Status r = env.Run(); !r.ok()) return r;
      env_ids[e.id] = db.last_insert_rowid();
      manifest->environment_ids.push_back(e.fingerprint);
    }
    SqliteStatement plan;
    if (Status r = db.Prepare(kInsertPlanColumns, "writing a plan", &plan); !r.ok()) {
      return r;
    }
    SqliteStatement trigger;
    if (Status r = db.Prepare(
            "INSERT INTO triggers (plan_id, position, kind, ops_blob) VALUES (?1, ?2, ?3, ?4)",
            "writing a trigger", &trigger);
        !r.ok()) {
      return r;
    }
    for (const PlanRecord& p : contents.plans) {
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
      if (Status r = plan.Run(); !r.ok()) return r;
      const PlanRowId id = db.last_insert_rowid();
      plan_ids[p.id] = id;
      for (size_t i = 0; i < p.triggers.size(); ++i) {
        trigger.Reset();
        trigger.BindInt64(1, id);
        trigger.BindInt64(2, static_cast<int64_t>(i));
        trigger.BindInt64(3, p.triggers[i].kind);
        trigger.BindBlob(4, p.triggers[i].ops_blob);
        if (Status r = trigger.Run(); !r.ok()) return r;
      }
    }
    SqliteStatement kernel;
    if (Status r = db.Prepare(
            "INSERT INTO kernels (environment_id, plan_id, source_hash, arch, compiler_version, "
            "binary, checksum, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            "writing a kernel", &kernel);
        !r.ok()) {
      return r;
    }
    manifest->kernels = 0;
    for (const KernelRecord& k : contents.kernels) {
      const auto plan_id = plan_ids.find(k.plan_id);
      const auto env_id = env_ids.find(k.environment_id);
      if (plan_id == plan_ids.end() || env_id == env_ids.end()) continue;
      if (KernelChecksum(k.binary) != FromColumn(k.checksum)) continue;  // never ship damage
      kernel.Reset();
      kernel.BindInt64(1, env_id->second);
      kernel.BindInt64(2, plan_id->second);
      kernel.BindBlob(3, k.key.source_hash);
      kernel.BindText(4, k.key.arch);
      kernel.BindText(5, k.key.compiler_version);
      kernel.BindBlob(6, k.binary);
      kernel.BindInt64(7, k.checksum);
      kernel.BindInt64(8, k.created);
      if (Status r = kernel.Run(); !r.ok()) return r;
      ++manifest->kernels;
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

void RemoveBundleFiles(const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::filesystem::remove(path + suffix, ec);
  }
}

// The target's row for a bundle environment, added when new. *id stays empty, with the reason
// in *refusal, when the bundle's stable id is not the hash of its description or the target
// keeps another description under it.
Status MatchEnvironment(SqliteDatabase& db, const EnvironmentRecord& e, int64_t now,
                        std::optional<EnvironmentRowId>* id, std::string* refusal) {
  id->reset();
  if (EnvironmentStableIdOfText(e.description) != e.fingerprint) {
    *refusal = "its stable id is not the hash of its description";
    return Status::Ok();
  }
  SqliteStatement insert;
  if (Status s = db.Prepare(
          "INSERT INTO environments (fingerprint, description, created) VALUES (?1, ?2, ?3) "
          "ON CONFLICT (fingerprint) DO NOTHING",
          "adding an environment", &insert);
      !s.ok()) {
    return s;
  }
  insert.BindText(1, e.fingerprint);
  insert.BindText(2, e.description);
  insert.BindInt64(3, now);
  if (Status s = insert.Run(); !s.ok()) return s;
  SqliteStatement select;
  if (Status s = db.Prepare("SELECT id, description FROM environments WHERE fingerprint = ?1",
                            "finding an environment", &select);
      !s.ok()) {
    return s;
  }
  select.BindText(1, e.fingerprint);
  bool row = false;
  if (Status s = select.Step(&row); !s.ok()) return s;
  if (!row || select.ColumnText(1) != e.description) {
    *refusal = "the target stores another description under the same stable id";
    return Status::Ok();
  }
  *id = select.ColumnInt64(0);
  return Status::Ok();
}

// Adds the kernels the bundle linked to its plan `bundle_plan`, linked to `target_plan`; a
// kernel whose checksum fails is refused.
Status ImportKernels(SqliteDatabase& db, const std::vector<KernelRecord>& kernels,
                     PlanRowId bundle_plan, EnvironmentRowId environment, PlanRowId target_plan,
                     int64_t now, ImportResult* result) {
  for (const KernelRecord& k : kernels) {
    if (k.plan_id != bundle_plan) continue;
    if (KernelChecksum(k.binary) != FromColumn(k.checksum)) {
      result->refusals.push_back({fmt::format("kernel {}", k.id), "checksum mismatch"});
      continue;
    }
    KernelRowId id = 0;
    bool added = false;
    if (Status s = InsertKernelRow(db, environment, NewKernel{.key = k.key, .binary = k.binary},
                                   target_plan, now, &id, &added);
        !s.ok()) {
      return s;
    }
    result->kernels_added += added ? 1 : 0;
  }
  return Status::Ok();
}

}  // namespace

Status ExportBundle(PlanDatabase& source, const ExportOptions& options, ExportResult* result) {
  *result = ExportResult();
  std::error_code ec;
  if (std::filesystem::exists(options.bundle_path, ec)) {
    return Status::InvalidArgument(fmt::format(
        "{} already exists; export writes a new bundle file (remove it or pick another name)",
        options.bundle_path));
  }
  ExportContents contents;
  SqliteDatabase& db = source.sqlite();
  if (Status s = ListEnvironments(db, &contents.environments); !s.ok()) return s;
  PlanFilter filter{.workload = options.workload, .status = "ok"};
  std::vector<PlanRecord> plans;
  if (Status s = ListPlans(db, filter, &plans); !s.ok()) return s;
  for (PlanRecord& p : plans) {
    if (!CheckPlanRecord(p, nullptr).ok()) {
      ++result->skipped_damaged;
      continue;
    }
    contents.plans.push_back(std::move(p));
  }
  if (Status s = ReadPlanKernels(db, &contents.kernels); !s.ok()) return s;

  BundleManifest& m = result->manifest;
  m.format = kBundleFormat;
  m.format_version = kBundleFormatVersion;
  m.engine_version = options.engine_version;
  m.created = NowUnixMillis();
  m.workload = options.workload.value_or("");
  m.source = source.path();
  Status s = WriteBundle(contents, &m, options);
  if (!s.ok()) RemoveBundleFiles(options.bundle_path);
  return s;
}

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
  out->format_version = static_cast<int>(format_version);
  out->schema_version = static_cast<int>(schema_version);
  out->engine_version = values["engine_version"];
  out->workload = values["workload"];
  out->source = values["source"];
  std::istringstream ids(values["environment_ids"]);
  for (std::string id; ids >> id;) out->environment_ids.push_back(id);
  return Status::Ok();
}

Status ImportBundle(PlanDatabase& target, const ImportOptions& options, ImportResult* result) {
  *result = ImportResult();
  if (Status s = target.CheckWritable("importing a bundle"); !s.ok()) return s;
  std::unique_ptr<PlanDatabase> bundle;
  PlanDbOptions bundle_options{.path = options.bundle_path,
                               .read_only = true,
                               .create = false,
                               .allow_shared_writable = options.allow_shared_writable};
  if (Status s = PlanDatabase::Open(bundle_options, &bundle); !s.ok()) {
    return UnreadableBundle(options.bundle_path, s);
  }
  if (bundle->schema_version() > LatestSchemaVersion()) {
    return Status::InvalidArgument(fmt::format(
        "bundle {} was written with plan-database schema version {}, newer than this ember's "
        "{}; import it with a newer ember-plans",
        options.bundle_path, bundle->schema_version(), LatestSchemaVersion()));
  }
  BundleManifest& m = result->manifest;
  if (Status s = ReadBundleManifest(bundle->sqlite(), &m); !s.ok()) return s;
  if (m.format_version > kBundleFormatVersion) {
    return Status::InvalidArgument(fmt::format(
        "bundle {} has format version {}, newer than this ember's {}; import it with a newer "
        "ember-plans",
        options.bundle_path, m.format_version, kBundleFormatVersion));
  }
  if (m.schema_version > LatestSchemaVersion()) {
    return Status::InvalidArgument(fmt::format(
        "bundle {} declares plan-database schema version {}, newer than this ember's {}; "
        "import it with a newer ember-plans",
        options.bundle_path, m.schema_version, LatestSchemaVersion()));
  }

  std::vector<EnvironmentRecord> environments;
  std::vector<PlanRecord> plans;
  std::vector<KernelRecord> kernels;
  SqliteDatabase& source = bundle->sqlite();
  if (Status s = ListEnvironments(source, &environments); !s.ok()) return s;
  if (Status s = ListPlans(source, PlanFilter{.status = "ok"}, &plans); !s.ok()) return s;
  if (Status s = ReadPlanKernels(source, &kernels); !s.ok()) return s;
  bundle.reset();
  std::vector<std::string> stored_ids;
  for (const EnvironmentRecord& e : environments) stored_ids.push_back(e.fingerprint);
  if (stored_ids != m.environment_ids || static_cast<int64_t>(plans.size()) != m.plans) {
    return Status::Corruption(fmt::format(
        "bundle {} does not hold what its manifest lists (manifest: {} plan(s), environments "
        "[{}]; file: {} plan(s), environments [{}]); export it again",
        options.bundle_path, m.plans, fmt::join(m.environment_ids, " "), plans.size(),
        fmt::join(stored_ids, " ")));
  }

  const std::string origin =
      "import:" + std::filesystem::path(options.bundle_path).filename().string();
  std::vector<ImportRefusal> checked_refusals;
  std::vector<bool> plan_ok(plans.size(), false);
  for (size_t i = 0; i < plans.size(); ++i) {
    if (Status s = CheckPlanRecord(plans[i], nullptr); !s.ok()) {
      checked_refusals.push_back({fmt::format("plan {}", plans[i].id), s.message()});
    } else {
      plan_ok[i] = true;
    }
  }

  SqliteDatabase& db = target.sqlite();
  return RunTransaction(db, TransactionKind::kWrite, "importing a bundle", [&]() -> Status {
    const BundleManifest manifest = result->manifest;
    *result = ImportResult();
    result->manifest = manifest;
    result->refusals = checked_refusals;
    result->refused = static_cast<int64_t>(checked_refusals.size());
    const int64_t now = NowUnixMillis();

    std::map<EnvironmentRowId, EnvironmentRowId> env_ids;
    for (const EnvironmentRecord& e : environments) {
      std::optional<EnvironmentRowId> id;
      std::string refusal;
      if (Status r = MatchEnvironment(db, e, now, &id, &refusal); !r.ok()) return r;
      if (id.has_value()) {
        env_ids[e.id] = *id;
      } else {
        result->refusals.push_back({fmt::format("environment {}", e.id), refusal});
      }
    }

    for (size_t i = 0; i < plans.size(); ++i) {
      if (!plan_ok[i]) continue;
      const PlanRecord& p = plans[i];
      const auto env = env_ids.find(p.environment_id);
      if (env == env_ids.end()) {
        ++result->refused;
        result->refusals.push_back({fmt::format("plan {}", p.id), "its environment was refused"});
        continue;
      }
      NewPlan plan{.first_op_hash = FromColumn(p.first_op_hash),
                   .plan_key = *PlanKeyFromBytes(p.plan_key),
                   .ops_blob = p.ops_blob,
                   .plan_blob = p.plan_blob,
                   .num_ops = static_cast<uint32_t>(p.num_ops),
                   .explore_ms = p.explore_ms,
                   .origin = origin};
      InsertResult inserted;
      if (Status r = InsertPlanRow(db, env->second, plan, now, &inserted); !r.ok()) return r;
      switch (inserted.outcome) {
        case InsertOutcome::kInserted:
        case InsertOutcome::kReplacedQuarantined: ++result->inserted; break;
        case InsertOutcome::kExisting: ++result->existing; break;
        case InsertOutcome::kKeyCollision:
          ++result->refused;
          result->refusals.push_back(
              {fmt::format("plan {}", p.id),
               fmt::format("its key is taken by local plan {} with other ops", inserted.plan_id)});
          continue;
      }
      if (Status r = AppendTriggerRows(db, inserted.plan_id, p.triggers, &result->triggers_added);
          !r.ok()) {
        return r;
      }
      if (Status r = ImportKernels(db, kernels, p.id, env->second, inserted.plan_id, now, result);
          !r.ok()) {
        return r;
      }
    }
    return Status::Ok();
  });
}

}  // namespace ember
