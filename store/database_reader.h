// DatabaseReader: the plan database as PersistentPlans reads it on the op path, on a
// connection of its own (the writer has another, Note [Write-behind]).
//
// A read that fails stops reads for good, except on a server out of reach
// (PlanRepository::IsTransient): then reads pause, and the first read after the pause
// reconnects; the pause doubles from PlanWriter::kFirstRetry up to PlanWriter::kMaxRetry. Either
// is said once. Meanwhile the engine explores, and what the shared tier has is still used.
//
// Where the database tells of changes as they commit (PostgreSQL's LISTEN/NOTIFY), a
// PlanChangeListener hears what other hosts publish for the first ops read here, and
// ReadChanges reads a first op again only when something arrived that the store lacks.
//
// Threading: called under the device server's lock, like PersistentPlans.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include "engine/core/status.h"
#include "engine/ir/hash.h"
#include "store/codec/environment_fingerprint.h"
#include "store/plan_change_listener.h"
#include "store/repository/plan_repository.h"

namespace ember {

class DatabaseReader {
 public:
  // Opens the database and finds (or adds) `environment`'s row; a read of one first op asks for
  // at most `rows_per_read` rows (Note [Plans per first op], persistent_plans.h).
  Status Open(const PlanDbOptions& options, const EnvironmentFingerprint& environment,
              size_t rows_per_read);
  // Starts the change listener where the database has a change feed (said once where it
  // cannot be opened).
  void Listen();

  // REQUIRES: Open succeeded, and Close has not run.
  PlanRepository& repository() { return *repository_; }
  EnvironmentRowId environment() const { return environment_; }
  // What messages call the database.
  std::string where() const;

  // The repository while reads are neither stopped nor paused, else null; never reconnects
  // (compiled kernels, a miss's candidates: reads that may simply be skipped).
  PlanRepository* Current();
  // The repository when it can be written and read now (reconnecting when a pause is over),
  // else null: a reservation of the exploration budget.
  PlanRepository* WritableNow();

  // The stored rows of the first op `hash`. Unavailable without reading while reads are
  // stopped, paused or closed; a failed read pauses or stops reads.
  Status Read(uint64_t hash, LoadedPlans* loaded);

  // --- What other hosts publish (nothing where the database has no change feed) ---
  bool listening() const { return listener_ != nullptr; }
  // Moves when a change arrived for a watched first op (0 without a listener).
  uint64_t generation() const { return listener_ != nullptr ? listener_->generation() : 0; }
  // From now on, keeps what others publish for `hash`; called before its first read.
  void Watch(uint64_t hash);
  // `hash`'s rows read again when the listener heard of a plan for it that `known` says the
  // store lacks, of new triggers, or may have missed changes: true with `loaded` filled. False
  // when nothing is new, or when the read cannot happen now (then it is asked again later,
  // unless reads stopped). REQUIRES: listening().
  bool ReadChanges(uint64_t hash, const std::function<bool(const Hash128&)>& known,
                   LoadedPlans* loaded);

  // At exit: the listener stops first, the connection closes last (Close).
  void StopListening() { listener_.reset(); }
  void Close() { repository_.reset(); }

 private:
  // Whether reads can happen now, reconnecting when a pause is over.
  bool Up();
  // A read failed with `s`: reads pause (a server out of reach) or stop.
  void OnReadFailure(const Status& s);

  std::unique_ptr<PlanRepository> repository_;
  std::string path_;
  EnvironmentRowId environment_ = 0;
  size_t rows_per_read_ = 0;
  bool failed_ = false;
  // A server out of reach: reads are skipped until retry_at_, then Up reconnects.
  bool down_ = false;
  std::chrono::steady_clock::time_point retry_at_;
  std::chrono::milliseconds backoff_{0};

  // Null where the database cannot tell (SQLite); per first op watched, the listener's epoch of
  // the last complete read of it.
  std::unique_ptr<PlanChangeListener> listener_;
  std::unordered_map<uint64_t, uint64_t> synced_;
};

}  // namespace ember
