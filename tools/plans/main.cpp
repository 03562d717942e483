// ember-plans: inspection and maintenance of an ember plan database (described in
// docs/ember-plans.md). This file is the command line; each command is one function of
// commands.h, and the queries behind them live in store/.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "tools/plans/commands.h"

namespace ember::plans {
namespace {

constexpr char kFooter[] = R"(Examples:
  ember-plans stats                              counts, bytes, hits, schema version
  ember-plans ls --sort hits --limit 10          the 10 most used plans
  ember-plans show 7                             plan 7: ops, triggers, fusion trace, kernels
  ember-plans dot 7 | dot -Tsvg > plan7.svg      plan 7 as a graph
  ember-plans workloads                          exploration budgets per workload
  ember-plans facts --env env-1a2b               what backends measured about the device
  ember-plans recipes --workload train           the launch windows kept as graph recipes
  ember-plans explain --workload train           why its segments missed the stored plans
  ember-plans explain --log run.log              the same from an EMBER_LOG=medium log
  ember-plans verify                             health check (exit 0 ok, 1 problems, 2 unusable)
  ember-plans gc --max-bytes 64M --dry-run       what gc would evict
  ember-plans export warm.bundle                 a bundle for other machines
  ember-plans --db fleet.db import warm.bundle   merge a bundle's plans into fleet.db
  ember-plans shm ls                             the shared-memory segments of the database
  ember-plans shm invalidate                     running workers start fresh segments
The database is --db, else the engine's: [store] path in ember.toml, EMBER_PLAN_DB, or
./.ember/plans.db. Read commands never modify it. docs/ember-plans.md describes every command
and JSON shape.)";

// What the command line fills in, kept alive until the chosen command has run: the global
// options, every command's arguments, and the exit code of the command that ran.
struct CommandLine {
  GlobalOptions global;
  ListOptions list;
  int64_t show_id = 0;
  bool show_source = false;
  int64_t dot_id = 0;
  std::optional<std::string> facts_env;
  RecipesOptions recipes;
  std::optional<std::string> workloads_env;
  std::string reset_name;
  std::optional<std::string> reset_env;
  std::string cap_name;
  std::string cap_value;
  std::optional<std::string> cap_env;
  GcCommandOptions gc;
  std::string export_file;
  std::optional<std::string> export_workload;
  std::string import_file;
  bool import_trust_kernels = false;
  std::string copy_from;
  std::string copy_to;
  ShmRemoveOptions shm_rm;
  ExplainOptions explain;
  int exit_code = kExitOk;
};

// Makes `body` what `command` runs; its result becomes the process's exit code.
void OnRun(CLI::App* command, CommandLine& line, std::function<int()> body) {
  command->callback([&line, body = std::move(body)] { line.exit_code = body(); });
}

// Adds the optional --env option to `command`.
void AddEnvOption(CLI::App* command, std::optional<std::string>& env) {
  command->add_option("--env", env,
                      "only this environment: a row id or a stable-id prefix (env-…)");
}

void AddGlobalOptions(CLI::App& app, GlobalOptions& global) {
  app.add_option("--db", global.db, "the plan database (default: the engine's)");
  app.add_flag("--json", global.json, "JSON output (docs/ember-plans.md has every shape)");
  app.add_flag("--allow-shared-writable", global.allow_shared_writable,
               "accept a database (and shared segments) other users can write");
}

// stats, ls, show, dot.
void AddPlanCommands(CLI::App& app, CommandLine& line) {
  CLI::App* stats =
      app.add_subcommand("stats", "counts, bytes, hit totals, quarantined rows, schema version");
  stats->footer("Example: ember-plans stats --json");
  OnRun(stats, line, [&line] { return RunStats(line.global); });

  CLI::App* ls =
      app.add_subcommand("ls", "one line per plan: first op, ops, strategy, score, hits, last hit");
  ls->add_option("--workload", line.list.workload, "only plans this workload has used");
  AddEnvOption(ls, line.list.environment);
  ls->add_option("--sort", line.list.sort, "id (default), hits, recent, size or score")
      ->check(CLI::IsMember({"id", "hits", "recent", "size", "score"}));
  ls->add_option("--limit", line.list.limit, "at most N lines")->check(CLI::NonNegativeNumber);
  ls->footer("Example: ember-plans ls --workload train --sort recent --limit 20");
  OnRun(ls, line, [&line] { return RunList(line.global, line.list); });

  CLI::App* show = app.add_subcommand(
      "show", "a plan's ops, triggers, fusion trace table, fused traces and kernels");
  show->add_option("id", line.show_id, "the plan's id (as ls shows it)")->required();
  show->add_flag("--source", line.show_source, "print the CUDA source of each of its kernels");
  show->footer("Example: ember-plans show 7 --source");
  OnRun(show, line, [&line] { return RunShow(line.global, line.show_id, line.show_source); });

  CLI::App* dot = app.add_subcommand("dot", "Graphviz of a plan's blocks and ops");
  dot->add_option("id", line.dot_id, "the plan's id")->required();
  dot->footer("Example: ember-plans dot 7 | dot -Tsvg > plan7.svg");
  OnRun(dot, line, [&line] { return RunDot(line.global, line.dot_id); });

  CLI::App* facts =
      app.add_subcommand("facts", "what backends measured about their devices (epilogue choices)");
  AddEnvOption(facts, line.facts_env);
  facts->footer(R"(A fact only chooses between correct paths (which of two matmul epilogues is
faster); a damaged row is shown, and the engine ignores it and measures again.
Example: ember-plans facts --env env-1a2b --json)");
  OnRun(facts, line, [&line] { return RunFacts(line.global, line.facts_env); });

  CLI::App* recipes = app.add_subcommand(
      "recipes", "launch windows kept as graph recipes: key, workload, launches, kernels");
  AddEnvOption(recipes, line.recipes.environment);
  recipes->add_option("--workload", line.recipes.workload, "only this workload's recipes");
  recipes->add_option("--key", line.recipes.key,
                      "show each recipe of this key (16 hex digits) one launch per line");
  recipes->footer(R"(A recipe only lets a process capture a repeated window as a CUDA graph at its
first occurrence; it never supplies arguments. A damaged or unusable row is shown,
and the engine ignores it. Example: ember-plans recipes --key 0f3a… --json)");
  OnRun(recipes, line, [&line] { return RunRecipes(line.global, line.recipes); });
}

// workloads, reset-explorations, set-cap.
void AddWorkloadCommands(CLI::App& app, CommandLine& line) {
  CLI::App* workloads = app.add_subcommand(
      "workloads", "per workload: explorations used / cap, hits, misses, unfused runs");
  AddEnvOption(workloads, line.workloads_env);
  workloads->footer("Example: ember-plans workloads --json");
  OnRun(workloads, line, [&line] { return RunWorkloads(line.global, line.workloads_env); });

  CLI::App* reset =
      app.add_subcommand("reset-explorations", "give a workload its whole exploration budget back");
  reset->add_option("workload", line.reset_name, "the workload's name")->required();
  AddEnvOption(reset, line.reset_env);
  reset->footer("Example: ember-plans reset-explorations train");
  OnRun(reset, line,
        [&line] { return RunResetExplorations(line.global, line.reset_name, line.reset_env); });

  CLI::App* set_cap = app.add_subcommand("set-cap", "set a workload's max_explorations");
  set_cap->add_option("workload", line.cap_name, "the workload's name")->required();
  set_cap->add_option("n", line.cap_value, "a non-negative integer, or 'unlimited'")->required();
  AddEnvOption(set_cap, line.cap_env);
  set_cap->footer("Example: ember-plans set-cap train 50");
  OnRun(set_cap, line,
        [&line] { return RunSetCap(line.global, line.cap_name, line.cap_value, line.cap_env); });

  CLI::App* explain = app.add_subcommand(
      "explain", "why segments missed the stored plans: causes, nearest plans, advice");
  explain->add_option("--workload", line.explain.workload, "only this workload");
  AddEnvOption(explain, line.explain.environment);
  explain->add_option("--log", line.explain.log,
                      "read a recorded EMBER_LOG=medium log instead of the database");
  explain->add_option("--limit", line.explain.limit, "at most N patterns per workload (10; 0: all)")
      ->check(CLI::NonNegativeNumber);
  explain->footer(R"(The database keeps each workload's misses by pattern (the same miss again,
whatever the values), most frequent first; a log is grouped the same way.
Example: ember-plans explain --workload dynamic --json)");
  OnRun(explain, line, [&line] { return RunExplain(line.global, line.explain); });
}

// verify, gc.
void AddHealthCommands(CLI::App& app, CommandLine& line) {
  CLI::App* verify =
      app.add_subcommand("verify", "check every row; exit 0 healthy, 1 problems found, 2 unusable");
  verify->footer("Example: ember-plans verify || echo damaged");
  OnRun(verify, line, [&line] { return RunVerify(line.global); });

  CLI::App* gc = app.add_subcommand(
      "gc", "evict the least valuable plans, then remove the kernels no plan uses");
  gc->add_option("--older-than", line.gc.older_than,
                 "evict plans not used for this long: 30d, 12h, 90m, 45s");
  gc->add_option("--max-bytes", line.gc.max_bytes,
                 "evict until plan bytes <= N: 1048576, 512K, 64M, 2G");
  AddEnvOption(gc, line.gc.environment);
  gc->add_flag("--dry-run", line.gc.dry_run, "only report what would be evicted");
  gc->footer(R"(Plans go by value (explore cost x hits / bytes) and age; without --older-than and
--max-bytes no plan is evicted. Then every compiled kernel that no remaining plan uses goes.
Example: ember-plans gc --older-than 30d --max-bytes 64M --dry-run)");
  OnRun(gc, line, [&line] { return RunGc(line.global, line.gc); });
}

// export, import.
void AddBundleCommands(CLI::App& app, CommandLine& line) {
  CLI::App* export_command =
      app.add_subcommand("export", "write a self-contained bundle (a new SQLite file)");
  export_command->add_option("file", line.export_file, "the bundle to create")->required();
  export_command->add_option("--workload", line.export_workload, "only plans this workload used");
  export_command->footer("Example: ember-plans export warm.bundle --workload serve");
  OnRun(export_command, line,
        [&line] { return RunExport(line.global, line.export_file, line.export_workload); });

  CLI::App* import_command =
      app.add_subcommand("import", "merge a bundle (existing plans win; triggers are merged)");
  import_command->add_option("file", line.import_file, "the bundle")->required();
  import_command->add_flag("--trust-kernels", line.import_trust_kernels,
                           "import its compiled kernels too (machine code: trust the sender)");
  import_command->footer(
      R"(A bundle's compiled kernels are machine code that the GPU runs unchecked,
so they are left out unless --trust-kernels is given (the engine compiles them again on first
use); its plans are always checked, proof included, and imported.
Example: ember-plans --db fleet.db import warm.bundle)");
  OnRun(import_command, line,
        [&line] { return RunImport(line.global, line.import_file, line.import_trust_kernels); });

  CLI::App* copy =
      app.add_subcommand("copy", "plans from one database to another (a file or a server each)");
  copy->add_option("from", line.copy_from, "the database to read (only read)")->required();
  copy->add_option("to", line.copy_to, "the database to add to (created when missing)")->required();
  copy->footer(R"(Plans, their triggers and environments are checked as the engine loads them and
published into the target (existing plans win; triggers are merged); workloads, budgets, hit
counts, device facts and compiled kernels stay behind. Passwords in a URI are never printed.
Example: ember-plans copy .ember/plans.db postgresql://ember@db.internal/ember_plans)");
  OnRun(copy, line, [&line] { return RunCopy(line.global, line.copy_from, line.copy_to); });
}

// migrate, vacuum, quarantine ls / clear.
void AddMaintenanceCommands(CLI::App& app, CommandLine& line) {
  CLI::App* migrate =
      app.add_subcommand("migrate", "apply the migrations this binary has and the file lacks");
  migrate->footer("Example: ember-plans migrate");
  OnRun(migrate, line, [&line] { return RunMigrate(line.global); });

  CLI::App* vacuum = app.add_subcommand("vacuum", "rewrite the file without its free pages");
  vacuum->footer("Example: ember-plans gc --max-bytes 64M && ember-plans vacuum");
  OnRun(vacuum, line, [&line] { return RunVacuum(line.global); });

  CLI::App* quarantine = app.add_subcommand("quarantine", "plans the engine set aside as damaged");
  quarantine->require_subcommand(1);
  CLI::App* quarantine_ls = quarantine->add_subcommand("ls", "list them with their reasons");
  quarantine_ls->footer("Example: ember-plans quarantine ls --json");
  OnRun(quarantine_ls, line, [&line] { return RunQuarantineList(line.global); });
  CLI::App* quarantine_clear = quarantine->add_subcommand("clear", "delete them");
  quarantine_clear->footer("Example: ember-plans quarantine clear");
  OnRun(quarantine_clear, line, [&line] { return RunQuarantineClear(line.global); });
  quarantine->footer("Example: ember-plans quarantine ls");
}

// shm ls / rm / invalidate.
void AddShmCommands(CLI::App& app, CommandLine& line) {
  CLI::App* shm = app.add_subcommand(
      "shm", "the database's shared-memory segments (plans shared between workers)");
  shm->require_subcommand(1);
  CLI::App* shm_ls = shm->add_subcommand(
      "ls", "one line per segment: environment, state, entries, keys, live claims");
  shm_ls->footer("Example: ember-plans shm ls --json");
  OnRun(shm_ls, line, [&line] { return RunShmList(line.global); });
  CLI::App* shm_rm = shm->add_subcommand("rm", "remove the segments (when no worker runs)");
  shm_rm->add_flag("--dry-run", line.shm_rm.dry_run, "only list what would be removed");
  shm_rm->add_flag("--force", line.shm_rm.force,
                   "remove them even though a worker holds a live claim on one");
  shm_rm->footer(R"(Running workers keep using the segment they mapped after it is removed,
while workers started later create a new one, so the two no longer share plans: remove
segments when no worker runs. A live claim means a worker is exploring right now: rm then
refuses unless --force. While workers run, 'shm invalidate' is the safe choice.
Example: ember-plans shm rm --dry-run)");
  OnRun(shm_rm, line, [&line] { return RunShmRemove(line.global, line.shm_rm); });
  CLI::App* shm_invalidate =
      shm->add_subcommand("invalidate", "mark them broken: running workers start fresh ones");
  shm_invalidate->footer(R"(Safe while workers run: each drops the broken segment, the next
to open it creates an empty one, and it fills again as workers read plans from SQLite.
(A worker reopens a broken segment up to 8 times in its life, then goes on with SQLite alone.)
Example: ember-plans shm invalidate)");
  OnRun(shm_invalidate, line, [&line] { return RunShmInvalidate(line.global); });
  shm->footer("Example: ember-plans shm ls");
}

int Main(int argc, char** argv) {
  CLI::App app{"ember-plans: inspect and maintain an ember plan database", "ember-plans"};
  app.footer(kFooter);
  app.require_subcommand(1);
  app.fallthrough();
  CommandLine line;
  AddGlobalOptions(app, line.global);
  // In this order in --help.
  AddPlanCommands(app, line);
  AddWorkloadCommands(app, line);
  AddHealthCommands(app, line);
  AddBundleCommands(app, line);
  AddMaintenanceCommands(app, line);
  AddShmCommands(app, line);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  return line.exit_code;
}

}  // namespace
}  // namespace ember::plans

int main(int argc, char** argv) { return ember::plans::Main(argc, argv); }
