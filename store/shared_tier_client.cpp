#include "store/shared_tier_client.h"

#include <chrono>

#include <fmt/format.h>

#include "engine/core/log.h"
#include "store/codec/plan_codec.h"

namespace ember {

void SharedTierClient::Open(const SharedSegmentOptions& options, uint32_t wait_ms) {
  options_ = options;
  wait_ms_ = wait_ms;
  if (Status s = SharedPlanTier::Open(options_, &tier_); !s.ok()) {
    // The database alone still shares plans, only later; but a refused segment (one others can
    // write) or an unusable one is something the user must hear about.
    Warn("shm-off:" + options.database_path,
         fmt::format("shared-memory tier off: {}", s.message()));
  }
}

bool SharedTierClient::Lookup(uint64_t hash, std::vector<SharedPlanTier::Entry>* entries) {
  if (tier_ == nullptr) return false;
  uint64_t head = 0;
  if (Status s = tier_->Lookup(hash, entries, heads_[hash], &head); !s.ok()) {
    OnFailure(s);
    return false;
  }
  heads_[hash] = head;
  return true;
}

bool SharedTierClient::Decode(const SharedPlanTier::Entry& entry, const OperationIr& first,
                              uint64_t hash, ExecutionPlan* plan) {
  if (Status s = DecodePlan(entry.encoded_plan, plan); !s.ok()) {
    // The checksum matched, so the bytes are as published: a sibling of another build.
    LogFusion(LogLevel::kBasic, [&] {
      return fmt::format(
          "[store] a shared plan for first-op 0x{:016x} is unusable ({}); "
          "ignored",
          hash, s.ToString());
    });
    return false;
  }
  // Another first op with the same hash: not this one's plan.
  if (!(plan->operations.front() == first)) return false;
  if (PlanKey(plan->operations) != entry.key) {
    // Published under a key that is not its ops' (the segment has no rows to quarantine).
    LogFusion(LogLevel::kBasic, [&] {
      return fmt::format(
          "[store] a shared plan for first-op 0x{:016x} is published under key {}, not its "
          "ops' ({}); ignored",
          hash, FormatHash(entry.key), FormatHash(PlanKey(plan->operations)));
    });
    return false;
  }
  return true;
}

void SharedTierClient::Publish(uint64_t hash, const Hash128& key, const ExecutionPlan& plan) {
  if (tier_ != nullptr) Publish(hash, key, EncodePlan(plan));
}

void SharedTierClient::Publish(uint64_t hash, const Hash128& key,
                               std::span<const uint8_t> encoded) {
  if (tier_ != nullptr) Published(tier_->Publish(hash, key, encoded));
}

void SharedTierClient::PublishFact(std::string_view name, std::string_view value) {
  if (tier_ != nullptr) Published(tier_->PublishFact(name, value));
}

bool SharedTierClient::LookupFact(std::string_view name, std::string* value) {
  if (tier_ == nullptr) return false;
  bool found = false;
  if (Status s = tier_->LookupFact(name, value, &found); !s.ok()) {
    OnFailure(s);
    return false;
  }
  return found;
}

void SharedTierClient::PublishRecipe(std::string_view workload, const GraphRecipe& recipe) {
  if (tier_ != nullptr) Published(tier_->PublishRecipe(workload, recipe));
}

std::vector<GraphRecipe> SharedTierClient::LookupRecipes(
    std::string_view workload, const SharedPlanTier::RecipeCheck& usable) {
  std::vector<GraphRecipe> recipes;
  if (tier_ == nullptr) return recipes;
  if (Status s = tier_->LookupRecipes(workload, &recipes, usable); !s.ok()) OnFailure(s);
  return recipes;
}

void SharedTierClient::Published(SharedPlanTier::PublishOutcome outcome) {
  switch (outcome) {
    case SharedPlanTier::PublishOutcome::kPublished: return;
    case SharedPlanTier::PublishOutcome::kFull:
      skipped_.fetch_add(1);
      if (!full_said_) {
        full_said_ = true;
        LogFusion(LogLevel::kBasic, [&] {
          return fmt::format(
              "[store] shared plan segment {} is full ({} bytes); new plans and device "
              "facts go to the database only ([store] shm_bytes sets its size)",
              tier_->segment().name(), tier_->segment().size());
        });
      }
      return;
    case SharedPlanTier::PublishOutcome::kBroken:
      skipped_.fetch_add(1);
      OnFailure(Status::Unavailable(tier_->BrokenReason()));
      return;
  }
}

bool SharedTierClient::ClaimOrWait(uint64_t hash) {
  if (tier_ == nullptr) return false;
  if (tier_->Claim(hash) == SharedPlanTier::ClaimOutcome::kMine || wait_ms_ == 0) return false;
  LogFusion(LogLevel::kMedium, [&] {
    return fmt::format(
        "[store] first-op 0x{:016x} is being explored by a sibling; waiting up "
        "to {} ms",
        hash, wait_ms_);
  });
  tier_->WaitForSibling(hash, std::chrono::milliseconds(wait_ms_));
  return true;
}

void SharedTierClient::Claim(uint64_t hash) {
  if (tier_ != nullptr) tier_->Claim(hash);
}

void SharedTierClient::Release(uint64_t hash) {
  if (tier_ != nullptr) tier_->Release(hash);
}

void SharedTierClient::ReleaseAll() {
  if (tier_ != nullptr) tier_->ReleaseAll();
}

void SharedTierClient::OnFailure(const Status& status) {
  const std::string name = tier_->segment().name();
  tier_.reset();
  heads_.clear();  // positions in the old segment
  std::string reopen = fmt::format("reopened it {} times already", reopens_);
  if (reopens_ < kMaxReopens) {
    ++reopens_;
    bool recreated = false;
    Status s = SharedPlanTier::Open(options_, &tier_, &recreated);
    if (s.ok()) {
      LogFusion(LogLevel::kBasic, [&] {
        return fmt::format("[store] shared plan segment {}: {}; {}", name, status.ToString(),
                           recreated ? "recreated it" : "reopened it (a sibling recreated it)");
      });
      return;
    }
    reopen = fmt::format("reopening it failed: {}", s.message());
  }
  Warn("shm-off:" + options_.database_path,
       fmt::format("shared plan segment {}: {}; {}; shared-memory tier off, going on with the "
                   "plan database alone",
                   name, status.ToString(), reopen));
}

}  // namespace ember
