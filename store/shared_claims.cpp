// Claims: single-flight exploration across processes (Note [Shared plan segment]).
//
// A slot is taken with a CAS on its owner, then filled: expires_ms is zeroed first and set last,
// so a reader that sees a live expiry also sees the hash written before it (release/acquire).
// Two processes that claim the same hash in different slots at once both see both claims
// (sequentially consistent stores, then loads); the higher slot gives way, so one explores.
#include <thread>

#include "store/clock.h"
#include "store/process_token.h"
#include "store/shared_plan_tier.h"

namespace ember {
namespace {

bool Live(const shm::ClaimSlot& slot, uint64_t owner, int64_t now_ms) {
  return owner != 0 && slot.expires_ms.load(std::memory_order_acquire) > now_ms &&
         ProcessTokenAlive(owner);
}

}  // namespace

int SharedPlanTier::OtherClaim(uint64_t first_op_hash, int64_t now_ms) const {
  const uint64_t me = SelfProcessToken();
  for (size_t i = 0; i < shm::kClaimSlots; ++i) {
    const shm::ClaimSlot& slot = segment_->claim(i);
    const uint64_t owner = slot.owner.load(std::memory_order_seq_cst);
    if (owner == 0 || owner == me) continue;
    if (slot.expires_ms.load(std::memory_order_acquire) <= now_ms) continue;
    if (slot.first_op_hash.load(std::memory_order_acquire) != first_op_hash) continue;
    if (Live(slot, owner, now_ms)) return static_cast<int>(i);
  }
  return -1;
}

SharedPlanTier::ClaimOutcome SharedPlanTier::Claim(uint64_t first_op_hash) {
  if (broken()) return ClaimOutcome::kMine;
  const int64_t now = NowUnixMillis();
  if (OtherClaim(first_op_hash, now) >= 0) return ClaimOutcome::kOther;
  const uint64_t me = SelfProcessToken();
  for (size_t i = 0; i < shm::kClaimSlots; ++i) {
    shm::ClaimSlot& slot = segment_->claim(i);
    uint64_t owner = slot.owner.load(std::memory_order_acquire);
    if (owner == me && slot.first_op_hash.load(std::memory_order_acquire) == first_op_hash) {
      slot.expires_ms.store(now + kClaimTtl.count(), std::memory_order_release);
      return ClaimOutcome::kMine;
    }
    const bool free = owner == 0 || (owner != me && !Live(slot, owner, now));
    if (!free || !slot.owner.compare_exchange_strong(owner, me, std::memory_order_seq_cst)) {
      continue;
    }
    slot.expires_ms.store(0, std::memory_order_seq_cst);
    slot.first_op_hash.store(first_op_hash, std::memory_order_seq_cst);
    slot.expires_ms.store(now + kClaimTtl.count(), std::memory_order_seq_cst);
    // A sibling that claimed the same hash at the same moment in a lower slot keeps it.
    const int other = OtherClaim(first_op_hash, now);
    if (other >= 0 && static_cast<size_t>(other) < i) {
      slot.expires_ms.store(0, std::memory_order_release);
      slot.owner.store(0, std::memory_order_release);
      return ClaimOutcome::kOther;
    }
    return ClaimOutcome::kMine;
  }
  // Every slot is held: exploring without a claim is always allowed.
  return ClaimOutcome::kMine;
}

bool SharedPlanTier::WaitForSibling(uint64_t first_op_hash, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::microseconds(50);
  while (!broken()) {
    if (HasEntries(first_op_hash)) return true;
    if (OtherClaim(first_op_hash, NowUnixMillis()) < 0) return HasEntries(first_op_hash);
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
  return false;
}

void SharedPlanTier::Release(uint64_t first_op_hash) {
  const uint64_t me = SelfProcessToken();
  for (size_t i = 0; i < shm::kClaimSlots; ++i) {
    shm::ClaimSlot& slot = segment_->claim(i);
    if (slot.owner.load(std::memory_order_acquire) != me ||
        slot.first_op_hash.load(std::memory_order_acquire) != first_op_hash) {
      continue;
    }
    slot.expires_ms.store(0, std::memory_order_release);
    uint64_t expected = me;
    slot.owner.compare_exchange_strong(expected, 0, std::memory_order_acq_rel);
  }
}

void SharedPlanTier::ReleaseAll() {
  const uint64_t me = SelfProcessToken();
  for (size_t i = 0; i < shm::kClaimSlots; ++i) {
    shm::ClaimSlot& slot = segment_->claim(i);
    if (slot.owner.load(std::memory_order_acquire) != me) continue;
    slot.expires_ms.store(0, std::memory_order_release);
    uint64_t expected = me;
    slot.owner.compare_exchange_strong(expected, 0, std::memory_order_acq_rel);
  }
}

}  // namespace ember
