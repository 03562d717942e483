#include <fmt/format.h>

#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "engine/core/config.h"
#include "engine/core/plan_db_location.h"
#include "tools/plans/plans_cli.h"

namespace ember::plans {

Status DefaultDatabasePath(std::string* path) {
  const LoadedConfig loaded = LoadConfig(ProcessEnv);
  for (const std::string& warning : loaded.warnings) std::fprintf(stderr, "%s\n", warning.c_str());
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

// The commands that open with OpenForReading or OpenForWriting read SQLite files only, so far: a
// server gets a clear refusal that says what works, instead of a "file not found" for a URI.
Status RefuseServer(const std::string& path) {
  if (!IsPostgresUri(path)) return Status::Ok();
  return Status::InvalidArgument(fmt::format(
      "{} is a PostgreSQL server; this command reads SQLite files only so far. Copy the "
      "server's plans into a file and read that: ember-plans copy '{}' plans.db",
      RedactedUri(path), RedactedUri(path)));
}

}  // namespace

Status OpenForReading(const GlobalOptions& global, std::unique_ptr<PlanDatabase>* out) {
  PlanDbOptions options;
  if (Status s = DatabasePath(global, &options.path); !s.ok()) return s;
  if (Status s = RefuseServer(options.path); !s.ok()) return s;
  options.read_only = true;
  options.create = false;
  options.allow_shared_writable = global.allow_shared_writable;
  return PlanDatabase::Open(options, out);
}

Status OpenRepositoryForReading(const GlobalOptions& global, std::unique_ptr<PlanRepository>* out) {
  PlanDbOptions options;
  if (Status s = DatabasePath(global, &options.path); !s.ok()) return s;
  options.read_only = true;
  options.create = false;
  options.allow_shared_writable = global.allow_shared_writable;
  return PlanRepository::Open(options, out);
}

Status OpenRepositoryForWriting(const GlobalOptions& global, std::unique_ptr<PlanRepository>* out) {
  PlanDbOptions options;
  if (Status s = DatabasePath(global, &options.path); !s.ok()) return s;
  options.create = false;
  options.allow_shared_writable = global.allow_shared_writable;
  if (Status s = PlanRepository::Open(options, out); !s.ok()) return s;
  if ((*out)->writable()) return Status::Ok();
  return Status::Unavailable(fmt::format("plan database {}: refusing changing it: {}",
                                         (*out)->location(), (*out)->read_only_reason()));
}

Status OpenForWriting(const GlobalOptions& global, bool create,
                      std::unique_ptr<PlanDatabase>* out) {
  PlanDbOptions options;
  if (Status s = DatabasePath(global, &options.path); !s.ok()) return s;
  if (Status s = RefuseServer(options.path); !s.ok()) return s;
  options.create = create;
  options.allow_shared_writable = global.allow_shared_writable;
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
  std::fprintf(stderr, "ember-plans: %s\n", status.message().c_str());
  PrintTrustHint(status);
  const bool unusable =
      status.code() == Status::Code::kNotFound || status.code() == Status::Code::kCorruption ||
      status.code() == Status::Code::kInvalidArgument || status.code() == Status::Code::kIoError;
  if (global.json) {
    nlohmann::ordered_json error = {{"error", status.message()}, {"usable", !unusable}};
    std::cout << error.dump(2) << "\n";
  }
  return unusable ? kExitUnusable : kExitProblems;
}

int ReportFailure(const Status& status) {
  std::fprintf(stderr, "ember-plans: %s\n", status.message().c_str());
  PrintTrustHint(status);
  return kExitProblems;
}

int ReportFailure(const GlobalOptions& global, const Status& status) {
  if (global.json) {
    const nlohmann::ordered_json error = {{"error", status.message()}, {"usable", true}};
    std::cout << error.dump(2) << "\n";
  }
  return ReportFailure(status);
}

}  // namespace ember::plans
