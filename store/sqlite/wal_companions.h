// What ember does about SQLite's companion files of a plan database: `<path>-wal` (the
// write-ahead log) and `<path>-shm` (its index).
//
// Note [Write-ahead log binding]
// SQLite keeps no record of which database file a write-ahead log belongs to: whoever opens
// `<path>` first after every connection closed replays every committed frame of `<path>-wal`
// onto whatever file is at `<path>` now (sqlite.org "How To Corrupt An SQLite Database File",
// §1.4 "Mispairing database files and hot journals"). A backup restored over a database, or
// another program's database copied to its path, would be overwritten page by page. Two defences:
//   1. No log is left behind: every ember connection is closed before the process exits
//      (PlanBacking::Close), and the last connection to close has SQLite checkpoint the log
//      and delete both companions. Read-only opens, which cannot, remove the empty companions
//      they created (RemoveCompanionsCreatedHere).
//   2. A log left by a process that died is checked against the file before SQLite sees it
//      (CheckWalBelongs). Every write transaction of ember bumps the database header's
//      user_version (a commit counter, BumpCommitCounter), so every commit of ember's puts a
//      copy of page 1 — the header — into the log. A log belongs to the file beside it when
//      the file's header is one of the headers the log holds (a checkpoint copied it), or is the
//      header the log started from (same application_id, commit counter one below the log's
//      first or equal to it), or the file never held a table (replaying destroys nothing). A
//      log with no committed header says nothing and is accepted (logs of ember before the
//      counter, logs without commits), and so is one that a live connection of another process
//      is using (it is that process's, not stale).
//   One case cannot be told apart: a copy of the database taken at the very state the log
//   started from (after a clean exit, before the run that was killed) and put back. It is the
//   log's own base, so the log is replayed onto it — giving the database as the killed run left
//   it, never another database's pages.
// A log that does not belong is never replayed. A read-only open refuses the database and
// leaves both files as they are; a writable open moves the log aside (`<path>-wal.stale-<unix
// time>`, its index removed) and says so once on stderr: then no SQLite program — ember or
// another — copies it over the file, and nothing is deleted.
//
// Threading: plain POSIX and file reads; callable from any thread. REQUIRES for every function
// here: no connection of this process has `path` open (Note [One descriptor per database
// file], open_database_files.h) — they open the companions and the database file directly.
#pragma once

#include <string>

#include "engine/core/status.h"

namespace ember {

// What CheckWalBelongs did with a log that is not the file's.
struct WalSetAside {
  std::string why;       // how the log and the file differ; empty when nothing was done
  std::string moved_to;  // `<path>-wal.stale-<unix time>`
};

// OK when `path` has no write-ahead log, an empty one, one in use by a live connection, or one
// that belongs to it (Note [Write-ahead log binding]). A log that is another database's is
// Corruption naming both files and what differs — or, with `set_aside`, is renamed to
// `<path>-wal.stale-<unix time>` (its index removed) and the call is OK with *out saying so.
// The judging and the move happen under the index's write lock, so no connection of any
// process starts using the log meanwhile. IoError when a file cannot be read.
Status CheckWalBelongs(const std::string& path, bool set_aside, WalSetAside* out);

// Whether a connection of another process has the database open in WAL mode (it holds a lock
// on the index's dead-man-switch byte for as long as it does).
bool CompanionsInUse(const std::string& path);

// Deletes `path` with its companions (-wal, -shm and a rollback -journal), ignoring those that
// are not there: for database files that are ember's own to replace — a bundle being written,
// the lab's and the fuzzers' scratch databases. REQUIRES: no connection has it open.
void RemoveDatabaseFiles(const std::string& path);

// Which companions exist now (taken before an open, to know afterwards which ones it created).
struct CompanionFiles {
  bool wal = false;
  bool shm = false;
};
CompanionFiles ExistingCompanions(const std::string& path);

// Removes the companions that were absent in `before` and exist now — the log only when it is
// empty (a read-only connection never writes one), the index whatever it holds (a cache of the
// log, rebuilt by the next connection) — provided no connection of any process uses them (this
// process takes the write lock SQLite's first connection takes on the index, so no connection
// can start using them meanwhile). Best effort: anything else leaves them as they are.
void RemoveCompanionsCreatedHere(const std::string& path, const CompanionFiles& before);

}  // namespace ember
