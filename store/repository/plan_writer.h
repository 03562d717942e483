// PlanWriter: the plan database's background writer. The op path only enqueues (new plans,
// triggers, hits, exploration counts); one thread drains the queue in batches, each batch a
// few short transactions on the writer's own connection, so a publication never waits on the
// op path and a slow disk never slows the program.
//
// Note [Write-behind]
// Messages are applied in the order they were enqueued. A plan this process found is known by
// its in-memory PlanId until its row exists; triggers for it queued behind it find the row id
// the insert returned. Loaded plans are Bind()-ed to their rows first. A unique-key conflict
// (another process published the same relative ops first) maps the PlanId to the existing row
// and merges this process's triggers into it: the first publication wins across processes, as
// the first plan found wins inside one (burn's "existing plan" rule). When the database itself
// fails (a removed table, a corrupt file, a database turned read-only, the file deleted, moved
// or replaced at its path), the writer says so once on stderr (ember::Warn: it costs the user
// their next warm start) and drops what is queued from then on: the program continues with its
// in-memory plans, and rows already committed stay. Any other failure (disk full, a refused
// constraint, a server's error) loses only the batch it happened in, said once: the next batch
// is tried, since it could succeed. A counter that cannot be written (hits, explorations,
// workload counters, misses) loses only its own step, never the plans. A writer made without a
// repository (a database that cannot be written) drops everything from the start.
//
// Note [Plans gc removed]
// `ember-plans gc` (and `quarantine clear`) may delete a plan's row while a writer holds its
// id. So a trigger names its plan by key (TriggerAppend::plan_key), found again inside the
// trigger's transaction; when the plan is gone, the writer publishes it again, whole, from
// what it remembers of it (items_: the plan and every trigger it knows, no kernels; a plan
// loaded from the database is read from its row at its first trigger). A kernel or a hit for a
// gone plan links to or counts on nothing, and a quarantine of a gone row is done already.
// Plan ids are never reused (migrations/0004_plan_ids.sql; identity columns on a server), so an
// id a writer still holds never reaches another plan.
//
// A database out of reach for now is different (PlanRepository::IsTransient: a server's lost
// connection, a SQLite file locked by another connection past the busy timeout): the
// writer says so once, keeps the batch that failed and every later one in memory (held, up to
// kMaxHeld messages; beyond that new plans, triggers and kernels are dropped and counted), and
// tries again after a growing pause (kFirstRetry doubling up to kMaxRetry), reconnecting first.
// Once a retry goes through it says so once, with what it wrote. A retried batch starts over,
// but the steps that already committed are not repeated where repeating would count twice
// (hits, explorations, workload counters); the others are idempotent by the repository's
// rules (existing plan wins, triggers and kernels deduplicated). Held messages count as applied
// for Flush, so a sync never waits on a server that is down; what is still held when the
// process exits is lost, and said.
//
// Device facts are written after the plans and counters of their batch, each one upsert of its
// own; a held batch writes them again (the upsert is idempotent) and, past kMaxHeld, drops
// them like new plans (a fact is measured again when it is missing). Graph recipes are written
// the same way, after the facts.
//
// Counters (plan hits, unfused runs) are coalesced: they wake the writer only once they have
// waited kCounterDelay, or when anything else is enqueued or a Flush asks, so that a steady
// state, which only hits stored plans, costs one small transaction per kCounterDelay instead of
// one per step (the SQLite commit of every step cost the CPU's MLP a third of its step time:
// docs/BENCHMARKS.md, issue 18). A process killed loses at most that long of hit counts; plans,
// triggers and kernels never wait.
//
// Threading: every public method is thread-safe; Flush() blocks until all that was enqueued
// before it is applied (or dropped after a failure).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "engine/stream/plan.h"
#include "store/repository/plan_repository.h"
#include "store/repository/plan_rows.h"

namespace ember {

class PlanWriter {
 public:
  static constexpr std::chrono::milliseconds kCounterDelay{1000};
  static constexpr size_t kMaxHeld = 4096;
  static constexpr std::chrono::milliseconds kFirstRetry{100};
  static constexpr std::chrono::milliseconds kMaxRetry{30000};

  // A null `repository` makes a writer that stores nothing (and starts no thread).
  PlanWriter(std::unique_ptr<PlanRepository> repository, EnvironmentRowId environment,
             WorkloadRowId workload);
  ~PlanWriter();  // applies what is queued, then stops
  PlanWriter(const PlanWriter&) = delete;
  PlanWriter& operator=(const PlanWriter&) = delete;

  void Bind(PlanId id, PlanRowId row);
  void Publish(PlanId id, PublishItem item);
  // A plan another process found (read from the shared tier): bound to its row when the row
  // exists, which is a read; published like a plan of this process's own when it does not
  // (its finder died before its write-behind committed).
  void Adopt(PlanId id, PublishItem item);
  void AppendTrigger(PlanId id, TriggerRow trigger);
  // A compiled kernel, linked to plan `plan` (its row, once known) or to none. A new plan's
  // first kernels travel in its PublishItem instead, so that they commit with it.
  void Kernel(std::optional<PlanId> plan, NewKernel kernel);
  void Hit(PlanId id);
  // One exploration; `counted`: already counted in the workload row (a reservation), so only
  // the miss is written.
  void Exploration(bool counted = false);
  void UnfusedRun();
  // Why a segment missed (Note [Explaining a miss]): coalesced per pattern like the counters,
  // added to the workload's workload_misses rows.
  void Miss(WorkloadMiss miss);
  void Quarantine(PlanRowId row, std::string reason);
  // A device fact of the environment (Note [Device facts], store/persistent_facts.h): upserted
  // after the batch's plans and counters; a write that fails loses only itself, like a counter.
  void Fact(DeviceFact fact);
  // A graph recipe of the environment (Note [Graph recipes], store/persistent_recipes.h):
  // upserted after the batch's facts, and lost alone when its write fails, like a fact.
  void Recipe(GraphRecipeRow recipe);
  void Flush();
  // Waits for every message enqueued so far except hit and unfused-run counters (which are
  // applied in order with the rest, only not waited for).
  void FlushDurable();
  // Flush, then copy the write-ahead log into the database file (a passive checkpoint: it
  // waits for nobody). The process is about to exit and never closes its connections, which
  // would otherwise leave its last commits in `-wal` only, so that copying the database file
  // alone would lose them.
  void Checkpoint();
  // The process is exiting: Checkpoint, then stop and close the connection, so that SQLite, at
  // the last connection's close, removes the -wal and -shm (Note [Write-ahead log binding]).
  // What is enqueued afterwards is dropped.
  void Close();

  uint64_t plans_published() const { return published_.load(); }
  bool failed() const { return failed_.load(); }
  // Writes held while the database is out of reach, and those dropped because too many were.
  uint64_t held() const { return held_count_.load(); }
  uint64_t dropped() const { return dropped_.load(); }

 private:
  struct Message {
    enum class Kind {
      kBind,
      kPublish,
      kAdopt,
      kTrigger,
      kExploration,
      kQuarantine,
      kCheckpoint,
      kKernel,
      kFact,
      kRecipe
    };
    Kind kind;
    PlanId id = 0;
    PlanRowId row = 0;
    PublishItem item;
    TriggerRow trigger;
    std::string reason;
    DeviceFact fact;        // kFact
    GraphRecipeRow recipe;  // kRecipe
    bool has_plan = false;  // kKernel: whether `id` names the plan it is linked to
    bool counted = false;   // kExploration: already in the workload row
  };

  std::unique_ptr<PlanRepository> repository_;
  const EnvironmentRowId environment_;
  const WorkloadRowId workload_;

  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::deque<Message> queue_;  // guarded by mu_
  uint64_t enqueued_ = 0;      // guarded by mu_
  uint64_t applied_ = 0;       // guarded by mu_
  uint64_t durable_ = 0;       // enqueued_ after the last message FlushDurable waits for; mu_
  bool stop_ = false;          // guarded by mu_
  int flushing_ = 0;           // Flush calls waiting; guarded by mu_
  // Hit and unfused-run counts not yet taken by the writer: counted in place rather than queued
  // as messages, so that a hit costs a map increment (Note [Write-behind]). Each count is one
  // of enqueued_.
  struct Counters {
    std::unordered_map<PlanId, int64_t> hits;
    int64_t unfused = 0;
    std::unordered_map<uint64_t, WorkloadMiss> misses;  // by pattern
    uint64_t count = 0;
  };
  Counters pending_;  // guarded by mu_
  // When the oldest counter not yet applied was enqueued (Note [Write-behind]); mu_.
  std::chrono::steady_clock::time_point counters_since_;
  bool closed_ = false;  // guarded by mu_; Enqueue drops once set

  // The steps of a batch that must not run twice, done by an earlier attempt.
  struct Progress {
    bool hits = false;
    bool explorations = false;
    bool counters = false;
    bool misses = false;
  };
  enum class Outcome { kApplied, kFailed, kHeld };
  struct Held {
    std::vector<Message> batch;
    Counters counted;
    Progress progress;
  };
  std::deque<Held> held_;                            // writer thread only, oldest first
  size_t held_messages_ = 0;                         // writer thread only
  std::chrono::steady_clock::time_point retry_at_;   // writer thread only
  std::chrono::milliseconds backoff_ = kFirstRetry;  // writer thread only
  bool transient_ = false;  // writer thread only: the last Check failed for want of the server
  std::string transient_reason_;  // writer thread only: what that failure said
  std::atomic<uint64_t> held_count_{0};
  std::atomic<uint64_t> dropped_{0};

  std::unordered_map<PlanId, PlanRowId> rows_;  // writer thread only
  // What stores each plan again once its row is gone (Note [Plans gc removed]); writer thread.
  std::unordered_map<PlanId, PublishItem> items_;
  std::atomic<uint64_t> published_{0};
  std::atomic<bool> failed_{false};
  std::thread thread_;

  void Enqueue(Message message);
  // One hit of `hit`, or (nullopt) one unfused run, or (`miss`) one miss.
  void Count(std::optional<PlanId> hit, WorkloadMiss* miss = nullptr);
  void Stop();
  void Run();
  Outcome Apply(const std::vector<Message>& batch, const Counters& counted, Progress& progress);
  // Applies a new batch, or holds it behind earlier held ones (Note [Write-behind]).
  void Take(std::vector<Message> batch, Counters counted);
  // Retries the held batches in order, after reconnecting; stops at the first that is held again.
  void RetryHeld();
  void Hold(std::vector<Message> batch, Counters counted, Progress progress);
  // Returns false when `status` failed: for a server out of reach, sets transient_; for a
  // failure of the database itself (or `fatal`), says so once (Warn) and stops writing; for any
  // other, says once that a batch was lost (Note [Write-behind]).
  bool Check(const Status& status, const char* what, bool fatal = false);
  // The same for a counter's step, which a failure of its own never stops: true unless the
  // database is out of reach or failed itself.
  bool CheckCounter(const Status& status, const char* what);
  // The item that stores plan `id` (row `row`) again, remembered or read from its row; null
  // when the row is gone or unreadable (Note [Plans gc removed]).
  PublishItem* Remembered(PlanId id, PlanRowId row);
  void Remember(PlanId id, const PublishItem& item);
  // Publishes again the plans of `appends` (the ids of a trigger batch's appends) listed in
  // `gone`, and binds them to their new rows.
  bool Republish(std::span<const size_t> gone, std::span<const PlanId> appends);
};

}  // namespace ember
