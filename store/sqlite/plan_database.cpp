#include "store/sqlite/plan_database.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

#include "engine/core/log.h"
#include "store/sqlite/database_header.h"
#include "store/sqlite/file_trust.h"
#include "store/sqlite/migrations.h"
#include "store/sqlite/network_filesystem.h"
#include "store/sqlite/sqlite_error.h"
#include "store/sqlite/sqlite_statement.h"
#include "store/sqlite/sqlite_transaction.h"
#include "store/sqlite/wal_companions.h"

namespace ember {

namespace {

// The tables of schema version 1; later migrations may add, never remove.
constexpr std::array<std::string_view, 7> kTables = {
    "schema_migrations", "environments", "plans", "triggers", "workloads", "plan_usage", "kernels"};

struct Inspection {
  int64_t application_id = 0;
  std::vector<std::string> tables;  // Excluding sqlite_* internals.
  std::vector<RecordedMigration> recorded;

  bool HasTable(std::string_view name) const {
    return std::find(tables.begin(), tables.end(), name) != tables.end();
  }
};

Status Inspect(SqliteDatabase& db, Inspection* out) {
  return RunTransaction(db, TransactionKind::kRead, "inspecting the database", [&]() -> Status {
    *out = Inspection();
    SqliteStatement app;
    if (Status s = db.Prepare("PRAGMA application_id", "reading the application id", &app);
        !s.ok()) {
      return s;
    }
    bool row = false;
    if (Status s = app.Step(&row); !s.ok()) return s;
    if (row) out->application_id = app.ColumnInt64(0);
    SqliteStatement tables;
    if (Status s = db.Prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT "
                              "LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
                              "listing tables", &tables);
        !s.ok()) {
      return s;
    }
    for (;;) {
      if (Status s = tables.Step(&row); !s.ok()) return s;
      if (!row) break;
      out->tables.push_back(tables.ColumnText(0));
    }
    return ReadRecordedMigrations(db, &out->recorded);
  });
}

// Refuses a SQLite file that belongs to another program.
Status CheckOurs(const std::string& path, const Inspection& found) {
  const bool marked = found.application_id == kPlanDbApplicationId;
  if (found.application_id != 0 && !marked) {
    return Status::InvalidArgument(fmt::format(
        "{} is a SQLite database of another program (application_id 0x{:08x}, not ember's "
        "0x{:08x}); ember does not modify it: configure another plan database path",
        path, found.application_id, kPlanDbApplicationId));
  }
  if (!found.tables.empty() && !found.HasTable("schema_migrations")) {
    if (marked) {
      return Status::Corruption(fmt::format(
          "plan database {} has lost its schema_migrations table; move the file away to start "
          "a new one",
          path));
    }
    return Status::InvalidArgument(fmt::format(
        "{} is a SQLite database of another program (tables: {}; no schema_migrations); ember "
        "does not modify it: configure another plan database path",
        path, fmt::join(found.tables, ", ")));
  }
  return Status::Ok();
}

Status CheckTables(SqliteDatabase& db, int version) {
  Inspection found;
  if (Status s = Inspect(db, &found); !s.ok()) return s;
  for (std::string_view table : kTables) {
    if (!found.HasTable(table)) {
      return Status::Corruption(fmt::format(
          "plan database {} (schema version {}) is missing table '{}'; move the file away to "
          "start a new one",
          db.path(), version, table));
    }
  }
  return Status::Ok();
}

// Note [Journal mode]: WAL, or a rollback journal on a network filesystem (`network_fs` names
// it; empty when local). *mode gets the mode in force afterwards. When another process's long
// transaction blocks the switch, the file keeps its mode (logged) and this is still OK.
Status SetJournalMode(SqliteDatabase& db, const std::string& network_fs, std::string* mode) {
  const char* wanted = network_fs.empty() ? "wal" : "delete";
  // Not in a transaction: SQLite refuses journal-mode changes there.
  const Status set =
      RunWithBusyRetry(db, "setting the journal mode",
                       [&] {
                         return db.QueryText(fmt::format("PRAGMA journal_mode = {}", wanted),
                                             "setting the journal mode", mode);
                       },
                       {.attempts = 2});
  if (!set.ok()) {
    if (!IsSqliteBusy(db.last_error_code())) return set;
    if (Status s = db.QueryText("PRAGMA journal_mode", "reading the journal mode", mode); !s.ok()) {
      return s;
    }
    LogFusion(LogLevel::kBasic, [&] {
      return fmt::format(
          "[store] plan database {}: could not switch to journal mode {} while another process "
          "was using it; staying in {}",
          db.path(), wanted, *mode);
    });
  }
  if (!network_fs.empty()) {
    LogFusion(LogLevel::kBasic, [&] {
      return fmt::format(
          "[store] plan database {} is on a network filesystem ({}): WAL needs memory shared "
          "by every process on one host, so it uses a rollback journal instead (journal_mode "
          "{}); concurrent writers wait for each other",
          db.path(), network_fs, *mode);
    });
  }
  return Status::Ok();
}

std::function<void(const std::string&)>& CompanionCheckHook() {
  static std::function<void(const std::string&)> hook;
  return hook;
}

// Empty when this process may write `path` and create its -wal and -shm beside it; otherwise
// why not, for the read-only reason. A companion is looked at once: another process's last
// close removes both at any moment, and a companion found missing is one SQLite creates, which
// needs the directory (issue 40: "exists" then "cannot be written" read a removal as a refusal,
// once in 300 starts beside a closing process).
std::string WhyUnwritable(const std::string& path) {
  if (access(path.c_str(), W_OK) != 0) {
    switch (errno) {
      case EROFS: return "it is on a read-only filesystem";
      case EPERM: return "the file is marked immutable (chattr +i)";
      case EACCES: return "this user has no write permission on it";
      default: return fmt::format("it is not writable ({})", std::strerror(errno));
    }
  }
  bool creates_a_companion = false;
  for (const char* suffix : {"-wal", "-shm"}) {
    const std::string companion = path + suffix;
    if (CompanionCheckHook()) CompanionCheckHook()(companion);
    if (access(companion.c_str(), R_OK | W_OK) == 0) continue;
    if (errno == ENOENT) {
      creates_a_companion = true;
      continue;
    }
    return fmt::format("its {} file cannot be written ({})", suffix, std::strerror(errno));
  }
  const std::string dir = DatabaseDirectory(path);
  if (creates_a_companion && access(dir.c_str(), W_OK | X_OK) != 0) {
    return fmt::format(
        "its directory {} cannot be written ({}), so SQLite cannot create the "
        "-wal and -shm files it needs beside it",
        dir, std::strerror(errno));
  }
  return "";
}

// Note [Write-ahead log binding]: a log that does not belong to the file is refused (read-only)
// or moved aside (writable), never replayed.
Status RefuseForeignWal(const std::string& path, bool read_only) {
  WalSetAside aside;
  const Status checked = CheckWalBelongs(path, /*set_aside=*/!read_only, &aside);
  if (checked.code() == Status::Code::kCorruption && read_only) {
    return Status::Corruption(fmt::format(
        "{}. SQLite would copy the log's pages over the file, so this read-only open leaves "
        "both as they are: if {} was replaced or restored on purpose, move {}-wal away and "
        "remove {}-shm (any writable ember open does this itself); to keep the log's plans, "
        "put the database it belongs to back at {}",
        checked.message(), path, path, path, path));
  }
  if (!checked.ok() || aside.moved_to.empty()) return checked;
  Warn("", fmt::format("{}. SQLite would have copied the log's pages over the file, so the log "
                       "was moved to {} (nothing was deleted); to recover its plans, put the "
                       "database it belongs to back at {} and rename {} to {}-wal",
                       aside.why, aside.moved_to, path, aside.moved_to, path));
  return Status::Ok();
}

// Whether a read that failed with `failure` (a primary SQLite code) may be retried on an
// immutable connection: the failure is about creating or writing the companions, and either
// nothing can write the file (`unwritable` says why) or no connection uses it and its log holds
// nothing, so that only a later writer could change it under the reader (and then a torn read
// fails its row checksums or SQLite's own checks, never gives a wrong plan).
bool CanReadAsImmutable(const std::string& path, int failure, const std::string& unwritable) {
  const bool companion_failure = failure == SQLITE_CANTOPEN || failure == SQLITE_READONLY ||
                                 failure == SQLITE_IOERR || failure == SQLITE_FULL;
  if (!companion_failure) return false;
  if (!unwritable.empty()) return true;
  struct stat st {};
  const bool log_empty = stat((path + "-wal").c_str(), &st) != 0 || st.st_size == 0;
  return log_empty && !CompanionsInUse(path);
}

}  // namespace

void SetCompanionCheckHookForTesting(std::function<void(const std::string& companion)> hook) {
  CompanionCheckHook() = std::move(hook);
}

Status PlanDatabase::CheckWritable(std::string_view what) const {
  if (writable()) return Status::Ok();
  return Status::Unavailable(
      fmt::format("plan database {}: refusing {}: {}", path(), what, read_only_reason_));
}

Status PlanDatabase::CheckStillAtPath() const {
  struct stat st {};
  if (stat(path().c_str(), &st) != 0) {
    return Status::NotFound(fmt::format(
        "the file was deleted or moved away while this process was using it ({}; what was "
        "committed went with it)",
        std::strerror(errno)));
  }
  if (st.st_dev != in_use_->device() || st.st_ino != in_use_->inode()) {
    return Status::NotFound(
        "the file at its path was replaced by another one while this process was using it");
  }
  return CheckWalStillAtPath();
}

Status PlanDatabase::CheckWalStillAtPath() const {
  if (wal_inode_ == 0) return Status::Ok();
  struct stat st {};
  if (lstat((path() + "-wal").c_str(), &st) != 0) {
    return Status::NotFound(
        fmt::format("its write-ahead log {}-wal was deleted while this process was using it ({})",
                    path(), std::strerror(errno)));
  }
  if (st.st_dev != wal_device_ || st.st_ino != wal_inode_) {
    return Status::NotFound(fmt::format(
        "its write-ahead log {}-wal was replaced by another file while this process was using it",
        path()));
  }
  return Status::Ok();
}

void PlanDatabase::NoteWal() {
  // An immutable connection reads no log (whatever lies beside the file is not its own).
  if (db_.mode() == SqliteDatabase::Mode::kImmutable) return;
  struct stat st {};
  if (lstat((path() + "-wal").c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    wal_device_ = st.st_dev;
    wal_inode_ = st.st_ino;
  }
}

PlanDatabase::~PlanDatabase() {
  // A read-only connection cannot delete the -wal and -shm it created, as the last connection
  // of a writer does (Note [Write-ahead log binding]); once it is closed, this process removes
  // them, unless another connection uses them.
  const std::string path = db_.path();
  const bool tidy = tidy_companions_ && db_.is_open() && db_.read_only();
  db_ = SqliteDatabase();
  in_use_.reset();
  if (tidy && !OpenDatabaseFile::InUse(path)) RemoveCompanionsCreatedHere(path, companions_before_);
}

Status PlanDatabase::Opened(std::unique_ptr<PlanDatabase> pdb, const CheckedFile& checked,
                            std::unique_ptr<PlanDatabase>* out) {
  // The file SQLite opened by path must be the one the trust checks judged (Note [Plan
  // database trust]): a path swapped in between is refused, its file left as it is.
  if (pdb->in_use_->device() != checked.device || pdb->in_use_->inode() != checked.inode ||
      !pdb->CheckStillAtPath().ok()) {
    return Status::InvalidArgument(fmt::format(
        "refusing plan database path {}: the file at it changed while it was being opened "
        "(another program renamed or replaced it)",
        pdb->path()));
  }
  pdb->NoteWal();
  *out = std::move(pdb);
  return Status::Ok();
}

Status PlanDatabase::Open(const PlanDbOptions& options, std::unique_ptr<PlanDatabase>* out) {
  out->reset();
  const std::string& path = options.path;
  if (path.empty()) return Status::InvalidArgument("no plan database path given");
  std::unique_ptr<PlanDatabase> pdb(new PlanDatabase());
  CheckedFile checked;
  if (Status s = PrepareDatabaseFile(options, &pdb->created_, &checked); !s.ok()) return s;
  if (options.after_checks_for_testing) options.after_checks_for_testing();
  // Before anything reads or writes the file or its companions: still the file judged?
  if (struct stat now{}; stat(path.c_str(), &now) != 0 ||
                         static_cast<uint64_t>(now.st_dev) != checked.device ||
                         static_cast<uint64_t>(now.st_ino) != checked.inode) {
    return Status::InvalidArgument(fmt::format(
        "refusing plan database path {}: the file at it changed between the trust checks and "
        "the open (another program renamed or replaced it); nothing was written to it",
        path));
  }
  // Reading the file directly would drop this process's SQLite locks on it if a connection
  // here has it open (Note [One descriptor per database file]); such a file was checked.
  if (!OpenDatabaseFile::InUse(path)) {
    if (Status s = CheckDatabaseHeader(path); !s.ok()) return s;
    if (Status s = RefuseForeignWal(path, options.read_only); !s.ok()) return s;
    pdb->companions_before_ = ExistingCompanions(path);
    pdb->tidy_companions_ = true;
  }
  pdb->in_use_ = std::make_unique<OpenDatabaseFile>(path);
  if (options.network_filesystem.has_value()) {
    pdb->network_filesystem_ = *options.network_filesystem ? "configured" : "";
  } else {
    pdb->network_filesystem_ = NetworkFilesystemOf(DatabaseDirectory(path));
  }
  std::string unwritable = WhyUnwritable(path);

  // 3. A read-only look first: nothing is written to a file that turns out not to be ours.
  SqliteDatabase& db = pdb->db_;
  if (Status s =
          SqliteDatabase::Open(path, SqliteDatabase::Mode::kReadOnly, options.busy_timeout, &db);
      !s.ok()) {
    return s;
  }
  Inspection found;
  Status inspected = Inspect(db, &found);
  const int failure = db.last_error_code();
  if (!inspected.ok() && unwritable.empty() && failure == SQLITE_READONLY) {
    // A process killed inside a transaction leaves a write-ahead log that only a writer may
    // recover (SQLITE_READONLY_RECOVERY). The header and log checks above said the file is
    // SQLite's and the log its own, and recovery rewrites only the -wal/-shm companions, so
    // look again as a writer.
    if (Status s =
            SqliteDatabase::Open(path, SqliteDatabase::Mode::kReadWrite, options.busy_timeout, &db);
        !s.ok()) {
      return s;
    }
    inspected = Inspect(db, &found);
  } else if (!inspected.ok() && CanReadAsImmutable(path, failure, unwritable)) {
    // SQLite cannot create (or write) the -shm a WAL database needs: nothing can write the
    // file, or its filesystem is full. Read it as the unchanging file it then is, rather than
    // lose its plans. A log beside an unwritable file is not read, so commits that were never
    // checkpointed are not seen.
    const Status first_failure = inspected;
    if (Status s =
            SqliteDatabase::Open(path, SqliteDatabase::Mode::kImmutable, options.busy_timeout, &db);
        !s.ok()) {
      return s;
    }
    inspected = Inspect(db, &found);
    if (inspected.ok() && unwritable.empty()) {
      unwritable = fmt::format("SQLite cannot open it for writing ({}), so it is read as it is",
                               first_failure.ToString());
    }
  }
  if (!inspected.ok()) return inspected;
  if (Status s = CheckOurs(path, found); !s.ok()) return s;
  const int recorded = found.recorded.empty() ? 0 : found.recorded.back().version;
  const int latest = LatestSchemaVersion();

  // 4. The mode.
  if (options.read_only) {
    pdb->read_only_reason_ = "the database was opened read-only";
  } else if (recorded > latest) {
    pdb->read_only_reason_ = fmt::format(
        "its schema version {} is newer than this binary's {}, so it is read-only here "
        "(upgrade ember to write to it)",
        recorded, latest);
  } else if (!unwritable.empty()) {
    pdb->read_only_reason_ = fmt::format("it cannot be written here: {}", unwritable);
  }
  if (!options.read_only && !pdb->writable()) {
    LogFusion(LogLevel::kBasic, [&] {
      return fmt::format("[store] plan database {}: {}", path, pdb->read_only_reason_);
    });
  }
  pdb->schema_version_ = recorded;
  if (!pdb->writable()) {
    if (recorded == 0) {
      return Status::NotFound(fmt::format(
          "plan database {} is empty and was opened read-only, so it was not initialized", path));
    }
    if (Status s = CheckTables(db, recorded); !s.ok()) return s;
    return Opened(std::move(pdb), checked, out);
  }

  // 5. Writable: journal mode, then migrations.
  if (Status s =
          SqliteDatabase::Open(path, SqliteDatabase::Mode::kReadWrite, options.busy_timeout, &db);
      !s.ok()) {
    return s;
  }
  if (db.read_only()) {
    // The checks above saw nothing against writing, but SQLite could only get the file
    // read-only (a permission or mount change just now, a security module).
    pdb->read_only_reason_ = "it cannot be written here: SQLite could open it only read-only";
    if (Status s = CheckTables(db, recorded); !s.ok()) return s;
    return Opened(std::move(pdb), checked, out);
  }
  const bool network = !pdb->network_filesystem_.empty();
  if (Status s = SetJournalMode(db, pdb->network_filesystem_, &pdb->journal_mode_); !s.ok()) {
    return s;
  }
  if (network && pdb->journal_mode_ == "wal") {
    pdb->read_only_reason_ = fmt::format(
        "it is in WAL mode on a network filesystem ({}) and another process is using it, so it "
        "could not be switched to a rollback journal",
        pdb->network_filesystem_);
    LogFusion(LogLevel::kBasic, [&] {
      return fmt::format("[store] plan database {}: {}; read-only", path, pdb->read_only_reason_);
    });
    if (Status s = CheckTables(db, recorded); !s.ok()) return s;
    return Opened(std::move(pdb), checked, out);
  }
  if (Status s = db.Exec(network ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL",
                         "setting synchronous");
      !s.ok()) {
    return s;
  }
  if (Status s = ApplyMigrations(db, EmbeddedMigrations(), &pdb->migrations_applied_); !s.ok()) {
    return s;
  }
  std::vector<RecordedMigration> now;
  if (Status s = ReadRecordedMigrations(db, &now); !s.ok()) return s;
  pdb->schema_version_ = now.empty() ? 0 : now.back().version;

  // 6. Every table is there.
  if (Status s = CheckTables(db, pdb->schema_version_); !s.ok()) return s;
  return Opened(std::move(pdb), checked, out);
}

}  // namespace ember
