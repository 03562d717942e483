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
  ember-plans show 7                             plan 7: ops, triggers, fusion trace
  ember-plans dot 7 | dot -Tsvg > plan7.svg      plan 7 as a graph
  ember-plans workloads                          exploration budgets per workload
  ember-plans verify                             health check (exit 0 ok, 1 problems, 2 unusable)
  ember-plans gc --max-bytes 64M --dry-run       what gc would evict
  ember-plans export warm.bundle                 a bundle for other machines
  ember-plans --db fleet.db import warm.bundle   merge a bundle into fleet.db
  ember-plans shm ls                             the shared-memory segments of the database
  ember-plans shm invalidate                     running workers start fresh segments
The database is --db, else the engine's: [store] path in ember.toml, EMBER_PLAN_DB, or
./.ember/plans.db. Read commands never modify it. docs/ember-plans.md describes every command
and JSON shape.)";

// Adds the optional --env option to `command`.
void AddEnvOption(CLI::App* command, std::optional<std::string>& env) {
  command->add_option("--env", env,
                      "only this environment: a row id or a stable-id prefix (env-…)");
}

int Main(int argc, char** argv) {
  CLI::App app{"ember-plans: inspect and maintain an ember plan database", "ember-plans"};
  app.footer(kFooter);
  app.require_subcommand(1);
  app.fallthrough();
  GlobalOptions global;
  app.add_option("--db", global.db, "the plan database (default: the engine's)");
  app.add_flag("--json", global.json, "JSON output (docs/ember-plans.md has every shape)");
  app.add_flag("--allow-shared-writable", global.allow_shared_writable,
               "accept a database (and shared segments) other users can write");
  int exit_code = kExitOk;
  auto run = [&exit_code](CLI::App* command, std::function<int()> body) {
    command->callback([&exit_code, body = std::move(body)] { exit_code = body(); });
  };

  CLI::App* stats =
      app.add_subcommand("stats", "counts, bytes, hit totals, quarantined rows, schema version");
  stats->footer("Example: ember-plans stats --json");
  run(stats, [&] { return RunStats(global); });

  ListOptions list;
  CLI::App* ls =
      app.add_subcommand("ls", "one line per plan: first op, ops, strategy, score, hits, last hit");
  ls->add_option("--workload", list.workload, "only plans this workload has used");
  AddEnvOption(ls, list.environment);
  ls->add_option("--sort", list.sort, "id (default), hits, recent, size or score")
      ->check(CLI::IsMember({"id", "hits", "recent", "size", "score"}));
  ls->add_option("--limit", list.limit, "at most N lines")->check(CLI::NonNegativeNumber);
  ls->footer("Example: ember-plans ls --workload train --sort recent --limit 20");
  run(ls, [&] { return RunList(global, list); });

  int64_t show_id = 0;
  CLI::App* show =
      app.add_subcommand("show", "a plan's ops, triggers, fusion trace table and fused traces");
  show->add_option("id", show_id, "the plan's id (as ls shows it)")->required();
  show->footer("Example: ember-plans show 7");
  run(show, [&] { return RunShow(global, show_id); });

  int64_t dot_id = 0;
  CLI::App* dot = app.add_subcommand("dot", "Graphviz of a plan's blocks and ops");
  dot->add_option("id", dot_id, "the plan's id")->required();
  dot->footer("Example: ember-plans dot 7 | dot -Tsvg > plan7.svg");
  run(dot, [&] { return RunDot(global, dot_id); });

  std::optional<std::string> workloads_env;
  CLI::App* workloads = app.add_subcommand(
      "workloads", "per workload: explorations used / cap, hits, misses, unfused runs");
  AddEnvOption(workloads, workloads_env);
  workloads->footer("Example: ember-plans workloads --json");
  run(workloads, [&] { return RunWorkloads(global, workloads_env); });

  std::string reset_name;
  std::optional<std::string> reset_env;
  CLI::App* reset =
      app.add_subcommand("reset-explorations", "give a workload its whole exploration budget back");
  reset->add_option("workload", reset_name, "the workload's name")->required();
  AddEnvOption(reset, reset_env);
  reset->footer("Example: ember-plans reset-explorations train");
  run(reset, [&] { return RunResetExplorations(global, reset_name, reset_env); });

  std::string cap_name;
  std::string cap_value;
  std::optional<std::string> cap_env;
  CLI::App* set_cap = app.add_subcommand("set-cap", "set a workload's max_explorations");
  set_cap->add_option("workload", cap_name, "the workload's name")->required();
  set_cap->add_option("n", cap_value, "a non-negative integer, or 'unlimited'")->required();
  AddEnvOption(set_cap, cap_env);
  set_cap->footer("Example: ember-plans set-cap train 50");
  run(set_cap, [&] { return RunSetCap(global, cap_name, cap_value, cap_env); });

  CLI::App* verify =
      app.add_subcommand("verify", "check every row; exit 0 healthy, 1 problems found, 2 unusable");
  verify->footer("Example: ember-plans verify || echo damaged");
  run(verify, [&] { return RunVerify(global); });

  GcCommandOptions gc_options;
  CLI::App* gc =
      app.add_subcommand("gc", "evict the least valuable plans (explore cost x hits / bytes, age)");
  gc->add_option("--older-than", gc_options.older_than,
                 "evict plans not used for this long: 30d, 12h, 90m, 45s");
  gc->add_option("--max-bytes", gc_options.max_bytes,
                 "evict until plan bytes <= N: 1048576, 512K, 64M, 2G");
  AddEnvOption(gc, gc_options.environment);
  gc->add_flag("--dry-run", gc_options.dry_run, "only report what would be evicted");
  gc->footer("Example: ember-plans gc --older-than 30d --max-bytes 64M --dry-run");
  run(gc, [&] { return RunGc(global, gc_options); });

  std::string export_file;
  std::optional<std::string> export_workload;
  CLI::App* export_command =
      app.add_subcommand("export", "write a self-contained bundle (a new SQLite file)");
  export_command->add_option("file", export_file, "the bundle to create")->required();
  export_command->add_option("--workload", export_workload, "only plans this workload used");
  export_command->footer("Example: ember-plans export warm.bundle --workload serve");
  run(export_command, [&] { return RunExport(global, export_file, export_workload); });

  std::string import_file;
  CLI::App* import_command =
      app.add_subcommand("import", "merge a bundle (existing plans win; triggers are merged)");
  import_command->add_option("file", import_file, "the bundle")->required();
  import_command->footer("Example: ember-plans --db fleet.db import warm.bundle");
  run(import_command, [&] { return RunImport(global, import_file); });

  CLI::App* migrate =
      app.add_subcommand("migrate", "apply the migrations this binary has and the file lacks");
  migrate->footer("Example: ember-plans migrate");
  run(migrate, [&] { return RunMigrate(global); });

  CLI::App* vacuum = app.add_subcommand("vacuum", "rewrite the file without its free pages");
  vacuum->footer("Example: ember-plans gc --max-bytes 64M && ember-plans vacuum");
  run(vacuum, [&] { return RunVacuum(global); });

  CLI::App* quarantine = app.add_subcommand("quarantine", "plans the engine set aside as damaged");
  quarantine->require_subcommand(1);
  CLI::App* quarantine_ls = quarantine->add_subcommand("ls", "list them with their reasons");
  quarantine_ls->footer("Example: ember-plans quarantine ls --json");
  run(quarantine_ls, [&] { return RunQuarantineList(global); });
  CLI::App* quarantine_clear = quarantine->add_subcommand("clear", "delete them");
  quarantine_clear->footer("Example: ember-plans quarantine clear");
  run(quarantine_clear, [&] { return RunQuarantineClear(global); });
  quarantine->footer("Example: ember-plans quarantine ls");

  CLI::App* shm = app.add_subcommand(
      "shm", "the database's shared-memory segments (plans shared between workers)");
  shm->require_subcommand(1);
  CLI::App* shm_ls = shm->add_subcommand(
      "ls", "one line per segment: environment, state, entries, keys, live claims");
  shm_ls->footer("Example: ember-plans shm ls --json");
  run(shm_ls, [&] { return RunShmList(global); });
  ShmRemoveOptions shm_rm_options;
  CLI::App* shm_rm = shm->add_subcommand("rm", "remove the segments (when no worker runs)");
  shm_rm->add_flag("--dry-run", shm_rm_options.dry_run, "only list what would be removed");
  shm_rm->add_flag("--force", shm_rm_options.force,
                   "remove them even though a worker holds a live claim on one");
  shm_rm->footer(R"(Running workers keep using the segment they mapped after it is removed,
while workers started later create a new one, so the two no longer share plans: remove
segments when no worker runs. A live claim means a worker is exploring right now: rm then
refuses unless --force. While workers run, 'shm invalidate' is the safe choice.
Example: ember-plans shm rm --dry-run)");
  run(shm_rm, [&] { return RunShmRemove(global, shm_rm_options); });
  CLI::App* shm_invalidate =
      shm->add_subcommand("invalidate", "mark them broken: running workers start fresh ones");
  shm_invalidate->footer(R"(Safe while workers run: each drops the broken segment, the next
to open it creates an empty one, and it fills again as workers read plans from SQLite.
(A worker reopens once: one that finds its segment broken again goes on with SQLite alone.)
Example: ember-plans shm invalidate)");
  run(shm_invalidate, [&] { return RunShmInvalidate(global); });
  shm->footer("Example: ember-plans shm ls");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  return exit_code;
}

}  // namespace
}  // namespace ember::plans

int main(int argc, char** argv) { return ember::plans::Main(argc, argv); }
