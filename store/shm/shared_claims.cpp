// Claims: single-flight exploration across processes (Note [Shared plan segment]).
//
// A slot is taken with a CAS on its owner, then filled: expires_ms is zeroed first and set last,
// so a reader that sees a live expiry also sees the hash written before it (release/acquire).
// Two processes that claim the same hash in different slots at once both see both claims
// (sequentially consistent stores, then loads); the higher slot gives way, so one explores.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <ctime>
#include <thread>

#include "engine/core/clock.h"
#include "store/shm/process_token.h"
#include "store/shm/shared_plan_tier.h"

namespace ember {
namespace {

// Shared (not FUTEX_PRIVATE) futex operations: the word is in a mapping other processes share.
uint32_t* FutexWord(std::atomic<uint32_t>& word) {
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));
  return reinterpret_cast<uint32_t*>(&word);
}

void FutexWait(std::atomic<uint32_t>& word, uint32_t expected, std::chrono::microseconds timeout) {
  const timespec ts{.tv_sec = static_cast<time_t>(timeout.count() / 1000000),
                    .tv_nsec = static_cast<long>(timeout.count() % 1000000) * 1000};
  // Returns at once when the word no longer holds `expected`; EINTR and timeouts are fine:
  // the caller looks again.
  ::syscall(SYS_futex, FutexWord(word), FUTEX_WAIT, expected, &ts, nullptr, 0);
}

void FutexWakeAll(std::atomic<uint32_t>& word) {
  ::syscall(SYS_futex, FutexWord(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

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
  const int64_t now = HostMonotonicMillis();
  if (OtherClaim(first_op_hash, now) >= 0) return ClaimOutcome::kOther;
  const uint64_t me = SelfProcessToken();
  for (size_t i = 0; i < shm::kClaimSlots; ++i) {
    shm::ClaimSlot& slot = segment_->claim(i);
    uint64_t owner = slot.owner.load(std::memory_order_acquire);
    if (owner == me && slot.first_op_hash.load(std::memory_order_acquire) == first_op_hash) {
      slot.expires_ms.store(now + kClaimTtl.count(), std::memory_order_release);
      may_hold_claims_.store(true, std::memory_order_seq_cst);
      return ClaimOutcome::kMine;
    }
    const bool free = owner == 0 || (owner != me && !Live(slot, owner, now));
    if (!free || !slot.owner.compare_exchange_strong(owner, me, std::memory_order_seq_cst)) {
      continue;
    }
    // After the CAS: a ReleaseAll that cleared the flag before this store scans after it, and
    // so sees the slot.
    may_hold_claims_.store(true, std::memory_order_seq_cst);
    Step(ClaimStep::kOwned);
    slot.expires_ms.store(0, std::memory_order_seq_cst);
    slot.first_op_hash.store(first_op_hash, std::memory_order_seq_cst);
    Step(ClaimStep::kNamed);
    slot.expires_ms.store(now + kClaimTtl.count(), std::memory_order_seq_cst);
    // A sibling that claimed the same hash at the same moment in a lower slot keeps it.
    const int other = OtherClaim(first_op_hash, now);
    if (other >= 0 && static_cast<size_t>(other) < i) {
      slot.expires_ms.store(0, std::memory_order_release);
      slot.owner.store(0, std::memory_order_release);
      return ClaimOutcome::kOther;
    }
    Step(ClaimStep::kClaimed);
    return ClaimOutcome::kMine;
  }
  // Every slot is held: exploring without a claim is always allowed.
  return ClaimOutcome::kMine;
}

bool SharedPlanTier::WaitForSibling(uint64_t first_op_hash, std::chrono::milliseconds timeout) {
  // Sleep on the wake word between looks: a publication or a release wakes the sleepers at
  // once. The sleeps are capped so that the death of the claimer (which wakes nobody) is
  // noticed within a few milliseconds.
  constexpr std::chrono::microseconds kMaxSleep{2000};
  shm::SegmentHeader& h = segment_->header();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!broken()) {
    const uint32_t seen = h.wake.load(std::memory_order_seq_cst);
    if (HasEntries(first_op_hash)) return true;
    if (OtherClaim(first_op_hash, HostMonotonicMillis()) < 0) return HasEntries(first_op_hash);
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    const auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - now);
    // Registered before the word is compared (seq_cst both sides): a publisher that bumped it
    // without seeing this sleeper bumped it before the kernel compares, which then returns.
    h.sleepers.fetch_add(1, std::memory_order_seq_cst);
    FutexWait(h.wake, seen, std::min(left, kMaxSleep));
    h.sleepers.fetch_sub(1, std::memory_order_seq_cst);
  }
  return false;
}

void SharedPlanTier::WakeSleepers() {
  shm::SegmentHeader& h = segment_->header();
  h.wake.fetch_add(1, std::memory_order_seq_cst);
  // A sleeper killed while sleeping leaves the count high: a needless wake-up call, no more.
  if (h.sleepers.load(std::memory_order_seq_cst) != 0) FutexWakeAll(h.wake);
}

void SharedPlanTier::Release(uint64_t first_op_hash) {
  const uint64_t me = SelfProcessToken();
  bool released = false;
  for (size_t i = 0; i < shm::kClaimSlots; ++i) {
    shm::ClaimSlot& slot = segment_->claim(i);
    if (slot.owner.load(std::memory_order_acquire) != me ||
        slot.first_op_hash.load(std::memory_order_acquire) != first_op_hash) {
      continue;
    }
    slot.expires_ms.store(0, std::memory_order_release);
    Step(ClaimStep::kReleasing);
    uint64_t expected = me;
    slot.owner.compare_exchange_strong(expected, 0, std::memory_order_acq_rel);
    released = true;
  }
  if (released) WakeSleepers();
}

void SharedPlanTier::ReleaseAll() {
  if (!may_hold_claims_.exchange(false, std::memory_order_seq_cst)) return;
  const uint64_t me = SelfProcessToken();
  bool released = false;
  for (size_t i = 0; i < shm::kClaimSlots; ++i) {
    shm::ClaimSlot& slot = segment_->claim(i);
    if (slot.owner.load(std::memory_order_acquire) != me) continue;
    slot.expires_ms.store(0, std::memory_order_release);
    uint64_t expected = me;
    slot.owner.compare_exchange_strong(expected, 0, std::memory_order_acq_rel);
    released = true;
  }
  if (released) WakeSleepers();
}

}  // namespace ember
