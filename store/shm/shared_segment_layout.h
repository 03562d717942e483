// The byte layout of a shared plan segment (Note [Shared plan segment], shared_plan_tier.h).
// Every process that maps a segment reads and writes it through these structs, so any change
// here must bump kSegmentLayoutVersion: a process that finds another version recreates the
// segment instead of misreading it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ember::shm {

// "EMBRSHMS" read as a little-endian integer.
inline constexpr uint64_t kSegmentMagic = 0x534d485352424d45ULL;
// 2: entries have a kind (plans and kernel binaries, EntryKind).
// 3: claims expire on CLOCK_MONOTONIC, not the wall clock (a step of the wall clock made every
//    claim expire at once, or a stuck claimer's claim last for as long as the step).
inline constexpr uint32_t kSegmentLayoutVersion = 3;
inline constexpr uint32_t kBucketCount = 4096;  // first-op hash chains; a power of two
inline constexpr uint32_t kClaimSlots = 256;
inline constexpr uint64_t kEntryAlignment = 64;  // entries start on cache lines

// Atomics shared between processes must be lock-free (address-free), not a hidden mutex.
static_assert(std::atomic<uint64_t>::is_always_lock_free);
static_assert(std::atomic<uint32_t>::is_always_lock_free);

enum SegmentState : uint32_t {
  kInitializing = 0,  // the creator is writing the header (ftruncate gave zeros: 0 on purpose)
  kReady = 1,
  kBroken = 2,  // found inconsistent: processes drop it and the next opener recreates it
};

struct alignas(64) SegmentHeader {
  // Written once by the creator before `state` becomes kReady; read-only afterwards.
  uint64_t magic;
  uint32_t layout_version;
  uint32_t data_offset;  // where entries begin (header, buckets and claims before it)
  uint64_t total_bytes;  // the segment's size
  uint64_t identity;     // hash of (database path, environment): guards against a name clash
  uint64_t created_ms;
  uint32_t creator_pid;
  std::atomic<uint32_t> state;

  // Moves on every entry published: a process that found nothing for a first op looks again
  // only when it has moved.
  alignas(64) std::atomic<uint64_t> generation;
  // Bump allocator: the next free byte. Past total_bytes means full.
  alignas(64) std::atomic<uint64_t> top;
  std::atomic<uint64_t> entries;          // entries linked (for tools and tests)
  std::atomic<uint64_t> publish_skipped;  // publications refused because the segment is full
  // A futex word: moves after every publication and claim release, so a worker waiting for a
  // sibling's plan sleeps in the kernel and wakes at once (shared_claims.cpp); `sleepers`
  // tells publishers whether anyone needs waking.
  std::atomic<uint32_t> wake;
  std::atomic<uint32_t> sleepers;
};
static_assert(sizeof(SegmentHeader) == 192, "the header's size is part of the layout");

// A worker exploring a segment that starts with `first_op_hash` (single flight). Free when
// owner is 0 or expires_ms has passed or the owner process is gone.
struct alignas(32) ClaimSlot {
  std::atomic<uint64_t> owner;  // process token (process_token.h); 0 = free
  std::atomic<uint64_t> first_op_hash;
  std::atomic<int64_t> expires_ms;  // HostMonotonicMillis (clock.h): one clock for the host
  uint64_t reserved;
};

// A kind added later is not a new layout: every reader skips the kinds it does not know (each
// walk filters by kind), so processes of the layout before it share the segment unharmed.
enum EntryKind : uint32_t {
  kPlanEntry = 0,    // payload: an encoded plan (EncodePlan); chained by its first op's hash
  kKernelEntry = 1,  // payload: a compiled kernel; chained by KernelChainHash of its key
  // payload: a device fact, the name's length (4 bytes, little-endian), the name, the value;
  // chained by FactChainHash of its name, keyed by the name's XXH3-128 (Note [Shared facts]).
  kFactEntry = 2,
  // payload: a graph recipe, the workload's length (4 bytes, little-endian), the workload, the
  // recipe's key (8), its number of kernels (4), each kernel (8), the body; chained by
  // RecipeChainHash of its workload, keyed by the XXH3-128 of the workload and the key's 8
  // bytes (Note [Shared recipes]).
  kRecipeEntry = 3,
};

// One published plan or kernel. Immutable once linked into its bucket.
struct alignas(8) EntryHeader {
  uint64_t next;           // offset of the next (older) entry of the bucket; 0 ends the chain
  uint64_t checksum;       // XXH3-64 of every byte after this field up to the end of the payload
  uint64_t first_op_hash;  // the chain's hash: a plan's first op, or a kernel's chain hash
  uint8_t plan_key[16];    // a plan's key; a kernel's key hash in the low half, high half 0;
                           // a fact's name hash; a recipe's workload-and-key hash
  uint32_t payload_bytes;  // the payload that follows this header
  uint32_t kind;           // EntryKind
};

inline constexpr size_t kBucketsOffset = sizeof(SegmentHeader);
inline constexpr size_t kClaimsOffset = kBucketsOffset + kBucketCount * sizeof(uint64_t);
inline constexpr size_t kDataOffset =
    (kClaimsOffset + kClaimSlots * sizeof(ClaimSlot) + kEntryAlignment - 1) / kEntryAlignment *
    kEntryAlignment;
// The smallest segment that holds the fixed part and a few plans, and the largest one ember
// creates or maps ([store] shm_bytes is bounded by both, engine/core/config.h). A bigger object
// under a segment's name (left by an engine without the bound) is recreated, not mapped: one
// of 91 TB made every later open fail with ENOMEM.
inline constexpr uint64_t kMinSegmentBytes = 256 * 1024;
inline constexpr uint64_t kMaxSegmentBytes = uint64_t{4} << 30;

}  // namespace ember::shm
