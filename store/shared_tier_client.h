// SharedTierClient: the shared-memory tier (store/shm/shared_plan_tier.h, Note [Shared plan
// segment]) as one PersistentPlans uses it. It keeps the segment open across its failures: a
// segment found inconsistent or unusable is reopened (which recreates it), up to kMaxReopens
// times in the process's life, and then given up; from then on, as when the tier is off, every
// call does nothing, so that PersistentPlans asks the tier without checking it first.
//
// It remembers where it last looked for each first op (Lookup returns only what was published
// since), and counts the publications the segment could not take (a full segment is said once).
//
// Threading: called under the device server's lock, like PersistentPlans.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/core/status.h"
#include "engine/stream/plan.h"
#include "store/shm/shared_plan_tier.h"

namespace ember {

class SharedTierClient {
 public:
  // Opens the segment of `options`; when it cannot be used, says so once and stays off.
  // `wait_ms` bounds a wait for a sibling's claim ([store] shm_wait_ms; 0: never wait).
  void Open(const SharedSegmentOptions& options, uint32_t wait_ms);

  // The tier, or null when it is off or was given up (compiled kernels, tests).
  SharedPlanTier* tier() { return tier_.get(); }
  bool on() const { return tier_ != nullptr; }
  // Whether the segment has every plan published to it (none was skipped): then a first op it
  // has plans for need not be read from the database too.
  bool complete() const { return tier_ != nullptr && !tier_->incomplete(); }
  // Moves with every publication (0 when off).
  uint64_t generation() const { return tier_ != nullptr ? tier_->generation() : 0; }
  // What messages call the segment. REQUIRES: on().
  std::string where() const { return "the shared segment " + tier_->segment().name(); }

  // The entries for `hash` published since the last Lookup of it (all of them the first time).
  // False when off, or when the segment failed (then it is reopened or given up).
  bool Lookup(uint64_t hash, std::vector<SharedPlanTier::Entry>* entries);
  // Whether `entry` holds a plan of `first` under its own key, decoded into `plan`; an entry
  // that does not decode, or is published under another key, is said and ignored.
  static bool Decode(const SharedPlanTier::Entry& entry, const OperationIr& first, uint64_t hash,
                     ExecutionPlan* plan);

  // Publishes a plan (encoded when on); a full segment skips it, a broken one is reopened.
  void Publish(uint64_t hash, const Hash128& key, const ExecutionPlan& plan);
  void Publish(uint64_t hash, const Hash128& key, std::span<const uint8_t> encoded);

  // A device fact (Note [Shared facts]): published like a plan; looked up by its name, true
  // with *value set when the segment has it.
  void PublishFact(std::string_view name, std::string_view value);
  bool LookupFact(std::string_view name, std::string* value);
  // Graph recipes (Note [Shared recipes]): published like a plan; every recipe the segment
  // holds for `workload` (none without a segment, or when it fails).
  void PublishRecipe(std::string_view workload, const GraphRecipe& recipe);
  std::vector<GraphRecipe> LookupRecipes(std::string_view workload,
                                         const SharedPlanTier::RecipeCheck& usable = {});

  // Claims `hash` for this process before it explores. True when a sibling holds the claim and
  // this process waited for its plan ([store] shm_wait_ms): look again, and Claim when nothing
  // came (the sibling died, gave up or is slow).
  bool ClaimOrWait(uint64_t hash);
  void Claim(uint64_t hash);
  void Release(uint64_t hash);
  void ReleaseAll();

  // Publications the segment could not take (full or broken), for Stats.
  uint64_t skipped() const { return skipped_.load(); }

 private:
  // Counts a publication the segment could not take (a full one said once, a broken one
  // reopened).
  void Published(SharedPlanTier::PublishOutcome outcome);
  // The segment failed with `status`: reopen it (a bounded number of times), else go on
  // without it.
  void OnFailure(const Status& status);

  std::unique_ptr<SharedPlanTier> tier_;
  SharedSegmentOptions options_;
  uint32_t wait_ms_ = 0;
  // Each `ember-plans shm invalidate` costs one reopen; past kMaxReopens the process keeps to
  // the database rather than chase a segment that keeps breaking.
  static constexpr int kMaxReopens = 8;
  int reopens_ = 0;
  bool full_said_ = false;
  // Per first-op hash, the segment's chain head at the last look (Lookup's `since`).
  std::unordered_map<uint64_t, uint64_t> heads_;
  std::atomic<uint64_t> skipped_{0};
};

}  // namespace ember
