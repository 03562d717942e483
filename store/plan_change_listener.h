// PlanChangeListener: a thread that waits on a plan database's change feed
// (store/repository/plan_change_feed.h) and keeps, per first op this process has loaded, what
// other processes published for it since. PersistentPlans reads it on the op path: generation()
// moves when something arrived (PlanBacking::Generation, so the plan store asks to refresh
// those first ops at their next segment), and Take() says whether a first op has anything the
// store lacks, so that a host reads the server only for what is new to it.
//
// A lost feed connection is retried with backoff; once it is back, every first op is read again
// once (an epoch moves), since what was published meanwhile was not heard.
//
// Threading: every public method is thread-safe; the thread stops in the destructor.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "engine/ir/hash.h"
#include "store/repository/plan_change_feed.h"

namespace ember {

class PlanChangeListener {
 public:
  // Listens on `feed` for changes to `environment`'s plans; `location` names the database in
  // messages.
  PlanChangeListener(std::unique_ptr<PlanChangeFeed> feed, EnvironmentRowId environment,
                     std::string location);
  ~PlanChangeListener();
  PlanChangeListener(const PlanChangeListener&) = delete;
  PlanChangeListener& operator=(const PlanChangeListener&) = delete;

  // Moves whenever a change to a watched first op arrived, or changes may have been missed.
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

  // From now on, keeps the changes to plans starting with `first_op_hash`. Returns the epoch
  // to pass to Take: call it before reading the database for that first op, so that a change
  // committed during the read is kept.
  uint64_t Watch(uint64_t first_op_hash);

  struct Pending {
    std::vector<Hash128> plans;  // keys of plans stored by others since the last Take
    bool triggers = false;       // stored plans gained triggers
    bool resync = false;         // changes may have been missed: read everything again
    uint64_t epoch = 0;          // the epoch this answer is up to (Take's `synced` afterwards)
  };
  // What arrived for `first_op_hash` since the last Take; `synced` is the epoch of the caller's
  // last complete read of it (Watch's value at first).
  Pending Take(uint64_t first_op_hash, uint64_t synced);
  // Gives back a Take whose read could not happen now: it is returned again by the next Take.
  void Requeue(uint64_t first_op_hash, Pending pending);

  // For tests and Stats: changes heard from others, and reconnections.
  uint64_t changes_heard() const { return heard_.load(); }
  uint64_t reconnections() const { return reconnections_.load(); }

 private:
  void Run();
  void Apply(const std::vector<PlanChange>& changes);
  // Sleeps `pause` unless stopping; false when stopping.
  bool Pause(std::chrono::milliseconds pause);

  std::unique_ptr<PlanChangeFeed> feed_;
  const EnvironmentRowId environment_;
  const std::string location_;

  std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  struct Entry {
    std::vector<Hash128> plans;
    bool triggers = false;
  };
  std::unordered_map<uint64_t, Entry> watched_;
  uint64_t epoch_ = 0;  // moves when the feed reconnected (changes may have been missed)

  std::atomic<uint64_t> generation_{0};
  std::atomic<uint64_t> heard_{0};
  std::atomic<uint64_t> reconnections_{0};
  std::thread thread_;
};

}  // namespace ember
