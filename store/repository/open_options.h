// PlanDbOptions: how to open a plan database (PlanDatabase::Open, PlanRepository::Open).
//
// Note [Plan database trust]: a plan database is as trusted as the program's own files — it can
// hold compiled kernels, which are code (docs/PLAN_DATABASE.md). So a new database is created with
// mode 0600 in a directory created 0700, and an existing database is refused when another user
// could have written it: the file (or its -wal, -shm or -journal companion) or its directory is
// writable by the group or by others, or is owned by a user other than this one or root. The
// refusal says which file, which mode or owner, and how to fix it. `allow_shared_writable`
// accepts such files for setups that share one database on purpose (a group-owned cache
// directory); then every member of the group is trusted like the program itself.
// The checks follow symlinks (they judge the file that would be opened, and the directory it is
// in), and the file SQLite opens must be the file that was checked: its device and inode are
// taken at the check and compared once the connection is open, so a path swapped in between
// (by whoever can write the directory) is refused rather than used. docs/RELIABILITY.md, "Trust
// model", says what this defends against and what it cannot.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace ember {

struct PlanDbOptions {
  // The database file. Its directory is created (0700) when missing and `create` is set.
  std::string path;
  // Open without ever writing: no creation, no migration, no journal-mode change; every write
  // API returns Unavailable.
  bool read_only = false;
  // Create the file (mode 0600) when it does not exist. Without it a missing file is NotFound.
  bool create = true;
  // Accept a database or directory that other users can write (Note [Plan database trust]).
  bool allow_shared_writable = false;
  // Whether the file lives on a network filesystem, where WAL cannot work (Note [Journal
  // mode]). nullopt: detect with statfs; a value forces the answer (tests, unusual mounts).
  std::optional<bool> network_filesystem;
  // How long SQLite waits for another connection's lock before a call reports busy.
  std::chrono::milliseconds busy_timeout{5000};
  // Test hook: runs after the path's checks and before SQLite opens the file, so that a test can
  // swap the file in that window (Note [Plan database trust]: the swap is refused).
  std::function<void()> after_checks_for_testing;
};

}  // namespace ember
