// Runs that span several ember-lab processes. The engine reads its configuration once per
// process, so every run that needs its own database state is a child process (child_process.h)
// that prints its RunResult as JSON:
//   - the default: `transformer` cold on a fresh database, then warm on the same database;
//   - `workers N <scenario>`: N processes on one database, started together.
#pragma once

#include <string>
#include <vector>

#include "tools/lab/options.h"
#include "tools/lab/progress.h"
#include "tools/lab/run_result.h"

namespace ember::lab {

struct ColdWarm {
  RunResult cold;
  RunResult warm;
  std::string database;
  bool database_kept = false;
};

// `options.db` names the database to create (it must not exist yet; it is kept afterwards);
// without it a scratch file .ember/lab-default-<pid>-<time>.db is used and removed at the end.
// Both runs keep the shared-memory tier off unless options.shm says otherwise (Note [Cold and
// warm] in orchestration.cpp).
// Throws std::runtime_error (with the reason) when a run fails or prints no result.
ColdWarm RunColdWarm(LabOptions options, Progress& progress);

// Starts `count` children running `options.scenario` on the same database, released together.
// Throws std::runtime_error naming every worker that failed.
// `progress` advances as each run (cold, warm) or worker finishes.
std::vector<RunResult> RunWorkers(const LabOptions& options, int count, Progress& progress);

}  // namespace ember::lab
