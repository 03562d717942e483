// The ember-plans commands, one function each; main.cpp binds them to the command line.
// Each returns the process's exit code (plans_cli.h) and prints its result on stdout (a table,
// or JSON with --json where docs/ember-plans.md documents the shape) and its complaints on
// stderr.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "tools/plans/plans_cli.h"

namespace ember::plans {

int RunStats(const GlobalOptions& global);

struct ListOptions {
  std::optional<std::string> workload;
  std::optional<std::string> environment;
  std::string sort = "id";  // id | hits | recent | size | score
  std::optional<int64_t> limit;
};
int RunList(const GlobalOptions& global, const ListOptions& options);

// with_source: print the CUDA source of each of the plan's kernels too.
int RunShow(const GlobalOptions& global, int64_t plan_id, bool with_source);
int RunDot(const GlobalOptions& global, int64_t plan_id);

// facts: the device facts of every environment, or of one (facts_command.cpp).
int RunFacts(const GlobalOptions& global, const std::optional<std::string>& environment);

// recipes: the graph recipes (recipes_command.cpp); with `key`, each of that key as its tape.
struct RecipesOptions {
  std::optional<std::string> environment;
  std::optional<std::string> workload;
  std::optional<std::string> key;  // 16 hex digits
};
int RunRecipes(const GlobalOptions& global, const RecipesOptions& options);

int RunWorkloads(const GlobalOptions& global, const std::optional<std::string>& environment);
int RunResetExplorations(const GlobalOptions& global, const std::string& workload,
                         const std::optional<std::string>& environment);
// cap: "unlimited" or a non-negative integer.
int RunSetCap(const GlobalOptions& global, const std::string& workload, const std::string& cap,
              const std::optional<std::string>& environment);

int RunVerify(const GlobalOptions& global);

// explain: why segments missed, from the database or from a recorded log (explain_command.cpp).
struct ExplainOptions {
  std::optional<std::string> workload;
  std::optional<std::string> environment;
  std::optional<std::string> log;  // a recorded EMBER_LOG=medium log instead of the database
  size_t limit = 10;               // patterns per workload
};
int RunExplain(const GlobalOptions& global, const ExplainOptions& options);

struct GcCommandOptions {
  std::optional<std::string> older_than;  // "30d"
  std::optional<std::string> max_bytes;   // "64M"
  std::optional<std::string> environment;
  bool dry_run = false;
};
int RunGc(const GlobalOptions& global, const GcCommandOptions& options);

int RunExport(const GlobalOptions& global, const std::string& file,
              const std::optional<std::string>& workload);
// trust_kernels: import the bundle's compiled kernels too (Note [Bundle kernels are code]).
int RunImport(const GlobalOptions& global, const std::string& file, bool trust_kernels);

// copy: every checked plan of `from` into `to` (either a file or a postgresql:// URI).
int RunCopy(const GlobalOptions& global, const std::string& from, const std::string& to);

int RunMigrate(const GlobalOptions& global);
int RunVacuum(const GlobalOptions& global);
int RunQuarantineList(const GlobalOptions& global);
int RunQuarantineClear(const GlobalOptions& global);

// shm: the database's shared-memory segments (shm_command.cpp).
int RunShmList(const GlobalOptions& global);
struct ShmRemoveOptions {
  bool dry_run = false;
  bool force = false;  // remove even when a segment has live claims (a worker is running)
};
int RunShmRemove(const GlobalOptions& global, const ShmRemoveOptions& options);
int RunShmInvalidate(const GlobalOptions& global);

}  // namespace ember::plans
