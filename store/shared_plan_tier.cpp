// Publishing and reading entries (Note [Shared plan segment]); claims are in shared_claims.cpp.
#include "store/shared_plan_tier.h"

#include <cstring>
#include <unordered_set>

#include <fmt/format.h>
#include <xxhash.h>

namespace ember {
namespace {

constexpr size_t kChecksummedFrom = offsetof(shm::EntryHeader, first_op_hash);

uint64_t EntryChecksum(const uint8_t* entry, size_t entry_bytes) {
  return XXH3_64bits(entry + kChecksummedFrom, entry_bytes - kChecksummedFrom);
}

Hash128 KeyOf(const uint8_t (&bytes)[16]) {
  Hash128 key;
  std::memcpy(&key.low, bytes, 8);
  std::memcpy(&key.high, bytes + 8, 8);
  return key;
}

struct KeyHash {
  size_t operator()(const Hash128& key) const { return key.low ^ (key.high * 0x9e3779b97f4a7c15); }
};

}  // namespace

Status SharedPlanTier::Open(const SharedSegmentOptions& options,
                            std::unique_ptr<SharedPlanTier>* out, bool* recreated) {
  std::unique_ptr<SharedSegment> segment;
  if (Status s = SharedSegment::Open(options, &segment, recreated); !s.ok()) return s;
  *out = std::make_unique<SharedPlanTier>(std::move(segment));
  return Status::Ok();
}

Status SharedPlanTier::ListKeys(const std::string& database_path, std::string_view environment,
                                std::vector<Hash128>* keys) {
  keys->clear();
  std::unique_ptr<SharedSegment> segment;
  const SharedSegmentOptions options{.database_path = database_path,
                                     .environment = std::string(environment),
                                     .bytes = shm::kMinSegmentBytes,
                                     .create = false};
  if (Status s = SharedSegment::Open(options, &segment); !s.ok()) return s;
  const uint64_t size = segment->size();
  const uint64_t max_steps = (size - shm::kDataOffset) / shm::kEntryAlignment + 1;
  std::unordered_set<Hash128, KeyHash> seen;
  for (uint32_t b = 0; b < shm::kBucketCount; ++b) {
    uint64_t offset = segment->bucket(b).load(std::memory_order_acquire);
    for (uint64_t steps = 0; offset != 0; ++steps) {
      if (steps >= max_steps || offset < shm::kDataOffset ||
          offset > size - sizeof(shm::EntryHeader)) {
        return Status::Corruption(
            fmt::format("shared plan segment {} is inconsistent", segment->name()));
      }
      shm::EntryHeader header;
      std::memcpy(&header, segment->at(offset), sizeof(header));
      const Hash128 key = KeyOf(header.plan_key);
      if (seen.insert(key).second) keys->push_back(key);
      offset = header.next;
    }
  }
  return Status::Ok();
}

SharedPlanTier::SharedPlanTier(std::unique_ptr<SharedSegment> segment)
    : segment_(std::move(segment)) {}

SharedPlanTier::~SharedPlanTier() { ReleaseAll(); }

SharedPlanTier::PublishOutcome SharedPlanTier::Publish(uint64_t first_op_hash, const Hash128& key,
                                                       std::span<const uint8_t> encoded_plan) {
  if (broken()) return PublishOutcome::kBroken;
  const size_t entry_bytes = sizeof(shm::EntryHeader) + encoded_plan.size();
  if (encoded_plan.size() > UINT32_MAX) return PublishOutcome::kFull;
  uint64_t offset = 0;
  if (!segment_->Reserve(entry_bytes, &offset)) return PublishOutcome::kFull;
  Step(PublishStep::kReserved);

  uint8_t* entry = segment_->at(offset);
  auto* header = reinterpret_cast<shm::EntryHeader*>(entry);
  header->first_op_hash = first_op_hash;
  std::memcpy(header->plan_key, &key.low, 8);
  std::memcpy(header->plan_key + 8, &key.high, 8);
  header->payload_bytes = static_cast<uint32_t>(encoded_plan.size());
  header->reserved = 0;
  uint8_t* payload = entry + sizeof(shm::EntryHeader);
  const size_t half = encoded_plan.size() / 2;
  std::memcpy(payload, encoded_plan.data(), half);
  Step(PublishStep::kHalfWritten);
  std::memcpy(payload + half, encoded_plan.data() + half, encoded_plan.size() - half);
  header->checksum = EntryChecksum(entry, entry_bytes);
  Step(PublishStep::kWritten);

  // Publication: the CAS (release) makes every byte above visible with the link.
  std::atomic<uint64_t>& bucket = segment_->bucket(first_op_hash);
  uint64_t head = bucket.load(std::memory_order_relaxed);
  do {
    header->next = head;
  } while (!bucket.compare_exchange_weak(head, offset, std::memory_order_release,
                                         std::memory_order_relaxed));
  Step(PublishStep::kLinked);
  shm::SegmentHeader& h = segment_->header();
  h.entries.fetch_add(1, std::memory_order_relaxed);
  h.generation.fetch_add(1, std::memory_order_acq_rel);
  WakeSleepers();
  Step(PublishStep::kDone);
  return PublishOutcome::kPublished;
}

bool SharedPlanTier::HasEntries(uint64_t first_op_hash) const {
  if (broken()) return false;
  // Headers only; anything odd is left for Lookup to diagnose.
  const uint64_t size = segment_->size();
  const uint64_t max_steps = (size - shm::kDataOffset) / shm::kEntryAlignment + 1;
  uint64_t offset = segment_->bucket(first_op_hash).load(std::memory_order_acquire);
  for (uint64_t steps = 0; offset != 0 && steps < max_steps; ++steps) {
    if (offset < shm::kDataOffset || offset > size - sizeof(shm::EntryHeader)) return false;
    shm::EntryHeader header;
    std::memcpy(&header, segment_->at(offset), sizeof(header));
    if (header.first_op_hash == first_op_hash) return true;
    offset = header.next;
  }
  return false;
}

Status SharedPlanTier::Lookup(uint64_t first_op_hash, std::vector<Entry>* out, uint64_t since,
                              uint64_t* head) {
  out->clear();
  if (broken()) return Status::Unavailable("the shared plan segment is marked broken");
  const uint64_t size = segment_->size();
  // A chain cannot hold more entries than fit in the arena: more steps means a loop.
  const uint64_t max_steps = (size - shm::kDataOffset) / shm::kEntryAlignment + 1;
  std::unordered_set<Hash128, KeyHash> seen;
  uint64_t offset = segment_->bucket(first_op_hash).load(std::memory_order_acquire);
  if (head != nullptr) *head = offset;
  // Entries are linked in front, so everything from `since` on was there at the last look.
  for (uint64_t steps = 0; offset != 0 && offset != since; ++steps) {
    const bool in_arena = offset >= shm::kDataOffset && offset % shm::kEntryAlignment == 0 &&
                          offset <= size - sizeof(shm::EntryHeader);
    if (steps >= max_steps || !in_arena) {
      segment_->MarkBroken();
      return Status::Corruption(fmt::format(
          "shared plan segment {}: the chain of first op {:016x} {} at offset {}", segment_->name(),
          first_op_hash, in_arena ? "loops" : "leaves the arena", offset));
    }
    shm::EntryHeader header;
    std::memcpy(&header, segment_->at(offset), sizeof(header));
    const uint64_t entry_bytes = sizeof(shm::EntryHeader) + uint64_t{header.payload_bytes};
    if (entry_bytes > size - offset) {
      segment_->MarkBroken();
      return Status::Corruption(
          fmt::format("shared plan segment {}: the entry at offset {} overruns the segment",
                      segment_->name(), offset));
    }
    const Hash128 key = KeyOf(header.plan_key);
    if (header.first_op_hash == first_op_hash && !seen.contains(key)) {
      // Checked on a private copy: what is decoded is exactly what was verified.
      std::vector<uint8_t> copy(entry_bytes);
      std::memcpy(copy.data(), segment_->at(offset), entry_bytes);
      if (EntryChecksum(copy.data(), copy.size()) == header.checksum) {
        seen.insert(key);
        out->push_back(
            {key, std::vector<uint8_t>(copy.begin() + sizeof(shm::EntryHeader), copy.end())});
      } else {
        ++corrupt_entries_;
      }
    }
    offset = header.next;
  }
  return Status::Ok();
}

}  // namespace ember
