// SqliteTransaction and RunTransaction: short transactions with rollback on every failure path
// and bounded retries when another process holds the lock (Note [Busy handling], below).
//
// Note [Busy handling]: every connection has a busy timeout (SQLite sleeps and retries a lock
// itself). Writers start with BEGIN IMMEDIATE, so the write lock is taken up front and a
// transaction never fails half-way for want of it. A few busy results still escape the timeout
// (WAL recovery by another process, a lock held longer than the timeout); RunTransaction then
// rolls back and runs the whole body again after a short, growing, jittered sleep, a bounded
// number of times, and finally reports Unavailable. Bodies must therefore be safe to run again:
// they only touch the database and their own outputs, which they reset first.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string_view>

#include "engine/core/status.h"
#include "store/sqlite/sqlite_database.h"

namespace ember {

enum class TransactionKind {
  kRead,   // BEGIN (deferred): a consistent snapshot for several reads.
  kWrite,  // BEGIN IMMEDIATE: takes the write lock now.
};

// One transaction on `db`, rolled back by the destructor unless committed — including when an
// exception unwinds through it. Not copyable, not movable.
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteDatabase& db) : db_(db) {}
  ~SqliteTransaction();
  SqliteTransaction(const SqliteTransaction&) = delete;
  SqliteTransaction& operator=(const SqliteTransaction&) = delete;

  // REQUIRES: not begun yet.
  Status Begin(TransactionKind kind);
  // REQUIRES: begun and not yet committed. On failure the destructor rolls back what is left.
  // A write transaction that changed rows bumps the commit counter first (Note [Write-ahead
  // log binding]); one that changed nothing writes nothing (a full disk does not fail it).
  Status Commit();

 private:
  SqliteDatabase& db_;
  TransactionKind kind_ = TransactionKind::kRead;
  int64_t changes_at_begin_ = 0;  // sqlite3_total_changes64 when the transaction began
  bool open_ = false;
};

struct BusyRetry {
  int attempts = 6;                            // Runs of the body, the first included.
  std::chrono::milliseconds first_backoff{5};  // Doubles after each busy attempt...
  std::chrono::milliseconds max_backoff{250};  // ...up to this; each sleep is jittered.
};

// Runs `body`, and again after a jittered, growing sleep while it fails because the database
// is busy, at most retry.attempts times in all. An exception from `body` becomes an IoError
// Status naming `what` (nothing throws out of the store). For single statements and for those
// that cannot run inside a transaction (PRAGMA journal_mode).
Status RunWithBusyRetry(SqliteDatabase& db, std::string_view what,
                        const std::function<Status()>& body, const BusyRetry& retry = {});

// Runs `body` inside a transaction of `kind` and commits it when `body` returns OK; rolls back
// when it returns an error or throws (the exception becomes an IoError Status: nothing throws
// out of the store). Retries the whole transaction on busy (Note [Busy handling]). `what` names
// the operation in messages.
Status RunTransaction(SqliteDatabase& db, TransactionKind kind, std::string_view what,
                      const std::function<Status()>& body, const BusyRetry& retry = {});

}  // namespace ember
