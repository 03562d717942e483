#include "store/sqlite/sqlite_transaction.h"

#include <sqlite3.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <random>
#include <thread>

#include "store/sqlite/commit_counter.h"
#include "store/sqlite/sqlite_error.h"

namespace ember {

SqliteTransaction::~SqliteTransaction() {
  if (!open_) return;
  // ROLLBACK can only fail when there is nothing left to roll back (SQLite already did, e.g.
  // after SQLITE_FULL); either way the transaction is over.
  sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

Status SqliteTransaction::Begin(TransactionKind kind) {
  const char* sql = kind == TransactionKind::kWrite ? "BEGIN IMMEDIATE" : "BEGIN";
  if (Status s = db_.Exec(sql, "starting a transaction"); !s.ok()) return s;
  kind_ = kind;
  changes_at_begin_ = sqlite3_total_changes64(db_.handle());
  open_ = true;
  return Status::Ok();
}

Status SqliteTransaction::Commit() {
  if (kind_ == TransactionKind::kWrite &&
      sqlite3_total_changes64(db_.handle()) != changes_at_begin_) {
    if (Status s = BumpCommitCounter(db_); !s.ok()) return s;
  }
  Status s = db_.Exec("COMMIT", "committing a transaction");
  // After a failed COMMIT SQLite may keep the transaction open (busy) or have rolled it back;
  // the destructor's ROLLBACK covers both.
  if (s.ok()) open_ = false;
  return s;
}

namespace {

std::chrono::milliseconds Jittered(std::chrono::milliseconds backoff) {
  thread_local std::minstd_rand rng(static_cast<unsigned>(
      getpid() ^ std::chrono::steady_clock::now().time_since_epoch().count()));
  std::uniform_int_distribution<int64_t> half(0, std::max<int64_t>(1, backoff.count() / 2));
  return backoff / 2 + std::chrono::milliseconds(half(rng)) + std::chrono::milliseconds(half(rng));
}

Status RunOnce(SqliteDatabase& db, TransactionKind kind, const std::function<Status()>& body) {
  SqliteTransaction txn(db);
  if (Status s = txn.Begin(kind); !s.ok()) return s;
  if (Status s = body(); !s.ok()) return s;
  return txn.Commit();
}

// `body()`, with any exception turned into an IoError naming `what`.
Status Guarded(SqliteDatabase& db, std::string_view what, const std::function<Status()>& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return Status::IoError(
        fmt::format("plan database {}: {} failed: {}", db.path(), what, e.what()));
  } catch (...) {
    return Status::IoError(
        fmt::format("plan database {}: {} failed: unknown exception", db.path(), what));
  }
}

}  // namespace

Status RunWithBusyRetry(SqliteDatabase& db, std::string_view what,
                        const std::function<Status()>& body, const BusyRetry& retry) {
  std::chrono::milliseconds backoff = retry.first_backoff;
  Status status;
  for (int attempt = 1;; ++attempt) {
    db.ClearLastError();
    status = Guarded(db, what, body);
    if (status.ok() || !IsSqliteBusy(db.last_error_code()) || attempt >= retry.attempts) break;
    std::this_thread::sleep_for(Jittered(backoff));
    backoff = std::min(backoff * 2, retry.max_backoff);
  }
  return status;
}

Status RunTransaction(SqliteDatabase& db, TransactionKind kind, std::string_view what,
                      const std::function<Status()>& body, const BusyRetry& retry) {
  return RunWithBusyRetry(
      db, what, [&] { return RunOnce(db, kind, body); }, retry);
}

}  // namespace ember
