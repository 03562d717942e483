// SharedPlanTier: plans shared between the worker processes of one host, between the
// in-memory store and SQLite. A plan found by any worker is published here the
// moment its exploration completes, before the write-behind commits it to SQLite, and a sibling
// that meets the same first op reads it from here instead of SQLite or exploring (what workers
// see: docs/PLAN_DATABASE.md, "The shared-memory tier").
//
// Note [Shared plan segment]
// The segment (shared_segment.h) is an append-only arena of immutable entries, one per
// published plan, chained per first-op hash from a fixed table of bucket heads:
//   * Publishing writes the whole entry (header, encoded plan, XXH3 checksum) into space taken
//     with one fetch_add, then makes it visible with one compare-and-swap of its bucket head
//     (release), then bumps the generation. Nothing is locked, so a publisher killed at any
//     instant blocks nobody; before the CAS its entry is unreachable garbage, after it the
//     entry is complete.
//   * Readers load a bucket head (acquire) and walk the chain without waiting for anyone. Each
//     entry is copied out and its checksum verified on the copy; an entry that fails is skipped
//     and counted. Per key the newest entry wins. A chain that leaves the arena or loops marks
//     the segment kBroken: every process drops it and the next opener recreates it. The
//     engine keeps SQLite in every case.
//   * The generation moves with every publication. A process looks again for a first op it
//     already knows only when it has moved (PlanBacking::Generation), and then reads only the
//     entries linked since its last look (they are in front of the chain).
//   * A plan that gains a trigger is published again, whole, as a newer entry under the same
//     key: a sibling that already has the plan takes the triggers it lacks from that entry, a
//     new reader gets the newest version. Two processes adding different triggers at the same
//     moment each publish their own version and the newest hides the other from new readers,
//     which then explore that case once and find the same plan (which only gains the trigger).
//   * Claims make exploration single-flight across processes: a worker about to explore a
//     segment whose first op nobody has a plan for claims that first op's hash in a slot table;
//     a sibling meeting the same first op waits (bounded by [store] shm_wait_ms) until a plan
//     for it is published, the claim is released, or its owner dies (pid + start time,
//     process_token.h), and then reads the plan instead of exploring. It sleeps on a futex in
//     the header that publications and releases wake, looking again every 2 ms at most (a
//     dying claimer wakes nobody). Claims are advisory:
//     a lost race means two workers explore, never a wrong result. A claim also expires after
//     kClaimTtl, so a live but stuck owner cannot hold it forever.
//   * Note [Shared kernels]: compiled kernel binaries are entries too (kind kKernelEntry),
//     chained under KernelChainHash(key) and published the moment a worker compiled or read
//     one, so K workers on one GPU host compile each kernel once between them. A worker about
//     to compile claims the chain hash, and a sibling that needs the same kernel waits for the
//     binary as for a plan (the same slots, futex and bounds). A kernel binary is code: the
//     plan database's rules decide whether this tier carries any (persistent_kernels.h).
//   * Note [Shared facts]: device facts (store/persistent_facts.h) are entries too (kind
//     kFactEntry), chained under FactChainHash(name) and keyed by the name's XXH3-128; the
//     payload repeats the name, so a lookup returns a value only for exactly its name. A worker
//     publishes a fact the moment it remembers one, and a sibling whose own memory and first
//     database read lack the name finds it here, with no database round trip. A new value is a
//     newer entry under the same key; the newest whole one wins. Facts are only published
//     when a worker remembers a new value (once per shape class), so they take little room; a
//     full segment skips them like a plan, and the database still has them.
//   * Note [Shared recipes]: graph recipes (store/persistent_recipes.h) are entries too (kind
//     kRecipeEntry), all of one workload chained under RecipeChainHash(workload), keyed by the
//     XXH3-128 of the workload and the recipe's key; the payload repeats the workload, so a
//     lookup returns only its own workload's. A process reads the whole chain once, when its
//     backend takes the recipe store, and publishes each recipe it remembers; the newest whole
//     entry of a key wins. A reader judges each recipe as it judges a database row.
//   * The segment answers for SQLite: whoever reads a first op from SQLite (because the segment
//     had nothing for it) publishes what it read, and every plan found by exploring is
//     published, so a first op the segment knows needs no SQLite read. Full is not an error: a
//     publication that does not fit is skipped and counted (Stats::shm_publish_skipped), the
//     plan still goes to SQLite, and from then on the segment is `incomplete()`: lookups read
//     SQLite too. Plans that reach SQLite by other ways while a segment lives (a process with
//     EMBER_SHM=off, `ember-plans import`) are seen for first ops the segment does not know;
//     Invalidate() makes every worker start a fresh segment.
//
// Threading: one tier per device; its methods are called under the device server's lock.
// Different processes share it through the segment only.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/status.h"
#include "engine/ir/hash.h"
#include "engine/runtime/graph_recipe_store.h"
#include "store/shm/shared_segment.h"

namespace ember {

class SharedPlanTier {
 public:
  static constexpr std::chrono::milliseconds kClaimTtl{10000};

  static Status Open(const SharedSegmentOptions& options, std::unique_ptr<SharedPlanTier>* out,
                     bool* recreated = nullptr);
  explicit SharedPlanTier(std::unique_ptr<SharedSegment> segment);
  ~SharedPlanTier();  // releases this process's claims

  const SharedSegment& segment() const { return *segment_; }
  bool broken() const { return segment_->broken(); }
  // Why broken() is true, for the one message the engine prints.
  std::string BrokenReason() const;
  // Whether some publication was ever skipped (the segment filled up): its plans for a first op
  // may then be a part of SQLite's, and SQLite is read as well.
  bool incomplete() const {
    return segment_->header().publish_skipped.load(std::memory_order_relaxed) != 0;
  }
  uint64_t generation() const {
    return segment_->header().generation.load(std::memory_order_acquire);
  }

  enum class PublishOutcome { kPublished, kFull, kBroken };
  // Publishes the encoded plan (EncodePlan) whose relative ops hash to `key` and start with an
  // op hashing to `first_op_hash`.
  PublishOutcome Publish(uint64_t first_op_hash, const Hash128& key,
                         std::span<const uint8_t> encoded_plan);

  struct Entry {
    Hash128 key;
    std::vector<uint8_t> encoded_plan;  // a private copy, checksum verified
  };
  // The entries published for `first_op_hash`, newest first, one per key (the newest
  // version). With `since` (a *head from an earlier call for the same first op), only those
  // published after that call. *head (optional) gets the position to pass as `since` next
  // time. Corruption when the segment is inconsistent (it is then marked broken).
  Status Lookup(uint64_t first_op_hash, std::vector<Entry>* out, uint64_t since = 0,
                uint64_t* head = nullptr);
  // The keys of every plan in the live segment of (database, environment), without creating
  // or changing anything (ember-plans gc keeps those plans). NotFound when there is no usable
  // segment; InvalidArgument when it may not be trusted (Note [Shared segment trust]).
  static Status ListKeys(const std::string& database_path, std::string_view environment,
                         std::vector<Hash128>* keys, bool allow_shared_writable = false);

  // --- Kernel binaries (Note [Shared kernels]) ---------------------------------------------------
  // The chain (and claim) hash of the kernel whose key hashes to `key_hash`: a plan's first-op
  // hash and a kernel's never meet by design, only by a 64-bit accident, and entry kinds keep
  // even that apart.
  static uint64_t KernelChainHash(uint64_t key_hash);
  PublishOutcome PublishKernel(uint64_t key_hash, std::span<const uint8_t> binary);
  // The newest binary published under `key_hash` (checksum verified); *found says whether
  // there is one. Corruption when the segment is inconsistent (it is then marked broken).
  Status LookupKernel(uint64_t key_hash, std::vector<uint8_t>* binary, bool* found);

  // --- Device facts (Note [Shared facts]) -------------------------------------------------------
  // The chain hash of the fact named `name` (apart from plans' and kernels' by a salt).
  static uint64_t FactChainHash(std::string_view name);
  // Publishes `value` as the newest value of `name`. REQUIRES: both fit a fact's bounds (the
  // caller checked them: PlanRepository::CheckDeviceFact).
  PublishOutcome PublishFact(std::string_view name, std::string_view value);
  // The newest whole value published under `name`; *found says whether there is one.
  // Corruption when the segment is inconsistent (it is then marked broken).
  Status LookupFact(std::string_view name, std::string* value, bool* found);

  // --- Graph recipes (Note [Shared recipes]) ----------------------------------------------------
  // The chain hash of `workload`'s recipes (apart from the other kinds' by a salt).
  static uint64_t RecipeChainHash(std::string_view workload);
  // Publishes `recipe` as the newest of its key for `workload`. The tier does not judge it: its
  // reader does (PlanRepository::CheckGraphRecipe).
  PublishOutcome PublishRecipe(std::string_view workload, const GraphRecipe& recipe);
  // The newest whole entry of each key published for `workload` that `usable` accepts (every
  // whole one when it is empty), newest first: an entry the reader refuses does not hide an
  // older copy of its key. Corruption when the segment is inconsistent (it is then marked
  // broken).
  using RecipeCheck = std::function<bool(const GraphRecipe&)>;
  Status LookupRecipes(std::string_view workload, std::vector<GraphRecipe>* out,
                       const RecipeCheck& usable = {});

  // Whether anything is published for `first_op_hash` (entry headers only, no copy).
  bool HasEntries(uint64_t first_op_hash) const;

  // --- Claims -----------------------------------------------------------------------------------
  enum class ClaimOutcome { kMine, kOther };
  // Claims `first_op_hash` for this process unless a live sibling holds it.
  ClaimOutcome Claim(uint64_t first_op_hash);
  // Waits until a plan for `first_op_hash` is published, no live sibling claims it any more, or
  // `timeout` passed. True when a plan was published.
  bool WaitForSibling(uint64_t first_op_hash, std::chrono::milliseconds timeout);
  void Release(uint64_t first_op_hash);
  void ReleaseAll();

  // Entries this process skipped because their checksum did not match.
  uint64_t corrupt_entries() const { return corrupt_entries_; }

  // Test hook: called at each step of Publish, so a test can kill the process there.
  enum class PublishStep { kReserved, kHalfWritten, kWritten, kLinked, kDone };
  void SetPublishHookForTesting(std::function<void(PublishStep)> hook) {
    publish_hook_ = std::move(hook);
  }
  // Test hook: called at each step of Claim and Release (the slot's owner set, its first-op
  // hash set, the claim complete; a release's expiry cleared before the owner is).
  enum class ClaimStep { kOwned, kNamed, kClaimed, kReleasing };
  void SetClaimHookForTesting(std::function<void(ClaimStep)> hook) {
    claim_hook_ = std::move(hook);
  }

 private:
  void Step(PublishStep step) {
    if (publish_hook_) publish_hook_(step);
  }
  void Step(ClaimStep step) {
    if (claim_hook_) claim_hook_(step);
  }
  PublishOutcome PublishEntry(uint64_t chain_hash, const Hash128& key, shm::EntryKind kind,
                              std::span<const uint8_t> payload);
  // Moves the wake word and wakes the processes sleeping in WaitForSibling.
  void WakeSleepers();
  // The live claim on `first_op_hash` by another process, or -1.
  int OtherClaim(uint64_t first_op_hash, int64_t now_ms) const;

  std::unique_ptr<SharedSegment> segment_;
  std::function<void(PublishStep)> publish_hook_;
  std::function<void(ClaimStep)> claim_hook_;
  uint64_t corrupt_entries_ = 0;
  // False when this process holds no claim slot for sure, so that ReleaseAll, which every
  // sync calls, need not scan the slots of a steady state that claims nothing. Set after each
  // claim, cleared by ReleaseAll before it scans.
  std::atomic<bool> may_hold_claims_{false};
};

}  // namespace ember
