#include <fmt/format.h>

#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "engine/core/config.h"
#include "engine/core/plan_db_location.h"
#include "engine/core/printable.h"
#include "tools/plans/json_output.h"
#include "tools/plans/plans_cli.h"

namespace ember::plans {

Status DefaultDatabasePath(std::string* path) {
  const LoadedConfig loaded = LoadConfig(ProcessEnv);
  for (const std::string& warning : loaded.warnings) {
    std::fprintf(stderr, "%s\n", PrintableLines(warning).c_str());
  }
  const std::string& configured = loaded.config.plan_db;
  if (configured == "off") {
    return Status::InvalidArgument(
        "the plan database is turned off here (EMBER_PLAN_DB=off or [store] path = \"off\"); "
        "name one with --db PATH");
  }
  // The engine's default (engine/api/device_registry.cpp, OpenPlanDatabase).
  *path = configured.empty() ? std::string(".ember/plans.db") : configured;
  return Status::Ok();
}

Status DatabasePath(const GlobalOptions& global, std::string* path) {
  if (!global.db.empty()) {
    *path = global.db;
    return Status::Ok();
  }
  return DefaultDatabasePath(path);
}

namespace {

// OpenForWriting is for what only a SQLite file has (vacuum): a server gets
// a clear refusal instead of a "file not found" for a URI.
Status RefuseServer(const std::string& path) {
  if (!IsPostgresUri(path)) return Status::Ok();
  return Status::InvalidArgument(fmt::format(
      "{} is a PostgreSQL server; this command works on SQLite files only", RedactedUri(path)));
}

// The options every command opens with: the database named by --db or the configuration, never
// created behind the user's back (create: a command that makes one), read-only where asked.
Status CommandOptions(const GlobalOptions& global, bool read_only, bool create,
                      PlanDbOptions* options) {
  *options = PlanDbOptions();
  if (Status s = DatabasePath(global, &options->path); !s.ok()) return s;
  options->read_only = read_only;
  options->create = create;
  options->allow_shared_writable = global.allow_shared_writable;
  return Status::Ok();
}

}  // namespace

Status OpenRepositoryForReading(const GlobalOptions& global, std::unique_ptr<PlanRepository>* out) {
  PlanDbOptions options;
  if (Status s = CommandOptions(global, /*read_only=*/true, /*create=*/false, &options); !s.ok()) {
    return s;
  }
  return PlanRepository::Open(options, out);
}

Status OpenRepositoryForWriting(const GlobalOptions& global, std::unique_ptr<PlanRepository>* out,
                                bool create) {
  PlanDbOptions options;
  if (Status s = CommandOptions(global, /*read_only=*/false, create, &options); !s.ok()) return s;
  if (Status s = PlanRepository::Open(options, out); !s.ok()) return s;
  return (*out)->CheckWritable("changing it");
}

Status OpenForWriting(const GlobalOptions& global, bool create,
                      std::unique_ptr<PlanDatabase>* out) {
  PlanDbOptions options;
  if (Status s = CommandOptions(global, /*read_only=*/false, create, &options); !s.ok()) return s;
  if (Status s = RefuseServer(options.path); !s.ok()) return s;
  if (Status s = PlanDatabase::Open(options, out); !s.ok()) return s;
  return (*out)->CheckWritable("changing it");
}

namespace {

// The engine's trust refusal (Note [Plan database trust]) suggests its configuration key; here
// the switch is a flag.
void PrintTrustHint(const Status& status) {
  if (status.message().find("allow shared writable") == std::string::npos) return;
  std::fprintf(stderr,
               "ember-plans: to accept it anyway, pass --allow-shared-writable (every user who "
               "can write it is then trusted like this program)\n");
}

}  // namespace

int ReportOpenFailure(const GlobalOptions& global, const Status& status) {
  std::fprintf(stderr, "ember-plans: %s\n", PrintableLines(status.message()).c_str());
  PrintTrustHint(status);
  const bool unusable =
      status.code() == Status::Code::kNotFound || status.code() == Status::Code::kCorruption ||
      status.code() == Status::Code::kInvalidArgument || status.code() == Status::Code::kIoError;
  if (global.json) {
    nlohmann::ordered_json error = {{"error", status.message()}, {"usable", !unusable}};
    std::cout << JsonText(error) << "\n";
  }
  return unusable ? kExitUnusable : kExitProblems;
}

int ReportFailure(const Status& status) {
  // Messages quote names and rows from the database, paths and bundle contents.
  std::fprintf(stderr, "ember-plans: %s\n", PrintableLines(status.message()).c_str());
  PrintTrustHint(status);
  return kExitProblems;
}

int ReportFailure(const GlobalOptions& global, const Status& status) {
  if (global.json) {
    const nlohmann::ordered_json error = {{"error", status.message()}, {"usable", true}};
    std::cout << JsonText(error) << "\n";
  }
  return ReportFailure(status);
}

}  // namespace ember::plans
