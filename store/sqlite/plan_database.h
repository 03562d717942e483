// PlanDatabase: an opened, checked and migrated plan database — the connection every
// PlanRepository query runs on.
//
// Open() does, in order, and stops at the first problem with a Status that names the file:
//   1. the file: created 0600 when missing, or checked (Note [Plan database trust]);
//   2. the header: an empty file, or a SQLite header that is not cut short (database_header.h),
//      and a write-ahead log beside it that belongs to it (Note [Write-ahead log binding]);
//   3. a read-only look: is it new (no tables), ours (application_id 'EMBR' or a
//      schema_migrations table) or another program's (refused, untouched), and which version;
//   4. the mode: read-only when asked, when the recorded schema version is newer than this
//      binary's (one log line at `basic`; every write then returns Unavailable naming both
//      versions), or when this process cannot write the file (a read-only mount, an immutable
//      or foreign-permission file, a directory where the -wal and -shm cannot be created: the
//      reason says which; a WAL database that nothing can write is read as immutable, see
//      sqlite_database.h); read-write otherwise;
//   5. when writable: the journal mode (Note [Journal mode]), then the missing migrations;
//   6. every table of the schema is there (a missing one is Corruption).
// Nothing is written to a file that fails 1–3, to a newer database, or in read-only mode, and
// a read-only open removes the empty -wal and -shm it made once it is closed (~PlanDatabase).
//
// Note [Journal mode]: plan databases use WAL with synchronous=NORMAL, so readers never block
// the writer and a commit costs one fsync at checkpoint time. WAL needs shared memory between
// all processes using the file, which a network filesystem (NFS, CIFS/SMB, ... detected with
// statfs, network_filesystem.h) cannot give across hosts; there the database keeps a rollback
// journal (journal_mode=DELETE, synchronous=FULL), logs why once at `basic`, and still works.
// A database already in WAL on such a filesystem is switched back; if another process holds it
// open so that the switch fails, it is opened read-only.
//
// Threading: as SqliteDatabase — one thread at a time.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "engine/core/status.h"
#include "store/repository/open_options.h"
#include "store/sqlite/file_trust.h"
#include "store/sqlite/open_database_files.h"
#include "store/sqlite/sqlite_database.h"
#include "store/sqlite/wal_companions.h"

namespace ember {

// PRAGMA application_id of every plan database: 'EMBR' (migrations/0001_plan_store.sql).
inline constexpr int64_t kPlanDbApplicationId = 0x454D4252;

// Called with a companion's path ("...-wal", "...-shm") just before PlanDatabase::Open looks at
// whether it can be written; the test of the race with another process's last close (which
// removes both) removes it there. Empty: none. Not for concurrent opens.
void SetCompanionCheckHookForTesting(std::function<void(const std::string& companion)> hook);

class PlanDatabase {
 public:
  // Opens options.path as described above. On failure *out is null.
  static Status Open(const PlanDbOptions& options, std::unique_ptr<PlanDatabase>* out);
  ~PlanDatabase();
  PlanDatabase(const PlanDatabase&) = delete;
  PlanDatabase& operator=(const PlanDatabase&) = delete;

  SqliteDatabase& sqlite() { return db_; }
  const std::string& path() const { return db_.path(); }

  bool writable() const { return read_only_reason_.empty(); }
  // Empty when writable; otherwise why this database is read-only.
  const std::string& read_only_reason() const { return read_only_reason_; }
  // OK while the file at path() is still the one this database opened, and so is its
  // write-ahead log; NotFound when either was deleted, moved away or replaced since (writing on
  // would store nothing anyone reads). CheckWalStillAtPath is the log's half alone.
  Status CheckStillAtPath() const;
  // The write-ahead log this connection writes and reads is still `<path>-wal`. SQLite keeps
  // using a log that was deleted (an unlinked file), while every other process, and any new
  // connection, opens a new log at the path under the same -shm index: this connection's commits
  // would then be seen by nobody and lost at a SIGKILL, and its reads could take a page of the
  // other log for one of its own. NotFound once that happened; OK where there is no log to
  // check (a rollback journal, or no log when the file was opened).
  Status CheckWalStillAtPath() const;
  // OK when writable; otherwise Unavailable with read_only_reason(). Write APIs start with it.
  Status CheckWritable(std::string_view what) const;

  // The newest migration recorded in the file (after this open's migrations).
  int schema_version() const { return schema_version_; }
  // How many migrations this open applied.
  int migrations_applied() const { return migrations_applied_; }
  // "wal", "delete", ... as SQLite reports it; empty when read-only (not touched).
  const std::string& journal_mode() const { return journal_mode_; }
  // The network filesystem the file is on ("nfs", ...), empty when local.
  const std::string& network_filesystem() const { return network_filesystem_; }
  // Whether this open created the file.
  bool created() const { return created_; }

 private:
  PlanDatabase() = default;
  // Records the log this connection uses (CheckWalStillAtPath).
  void NoteWal();
  // The end of every successful Open: checks that the file opened is the one checked, then
  // hands `pdb` over.
  static Status Opened(std::unique_ptr<PlanDatabase> pdb, const CheckedFile& checked,
                       std::unique_ptr<PlanDatabase>* out);

  // Declared before db_ so that it is unregistered only after the connection is closed
  // (Note [One descriptor per database file]).
  std::unique_ptr<OpenDatabaseFile> in_use_;

  SqliteDatabase db_;
  std::string read_only_reason_;
  int schema_version_ = 0;
  int migrations_applied_ = 0;
  std::string journal_mode_;
  std::string network_filesystem_;
  bool created_ = false;
  // Whether this open was the process's first of the file, and which companions were there
  // before it (a read-only connection's are removed when it closes).
  bool tidy_companions_ = false;
  CompanionFiles companions_before_;
  // The log at `<path>-wal` when the open finished (st_ino 0: none was there).
  dev_t wal_device_ = 0;
  ino_t wal_inode_ = 0;
};

}  // namespace ember
