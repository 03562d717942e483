// Publishing and reading entries (Note [Shared plan segment]); claims are in shared_claims.cpp.
#include "store/shm/shared_plan_tier.h"

#include <cstring>
#include <optional>
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

// Walks the chain that starts at `offset`, up to `since` (exclusive; 0: to its end), calling
// visit(offset, header) for each entry; visit returns false to stop. Every step is checked: an
// entry outside the arena, one that overruns it, or more steps than the arena has entries (a
// loop) ends the walk with Corruption saying which.
template <typename Visit>
Status WalkChain(const SharedSegment& segment, uint64_t offset, uint64_t since, Visit&& visit) {
  const uint64_t size = segment.size();
  const uint64_t max_steps = (size - shm::kDataOffset) / shm::kEntryAlignment + 1;
  for (uint64_t steps = 0; offset != 0 && offset != since; ++steps) {
    const bool in_arena = offset >= shm::kDataOffset && offset % shm::kEntryAlignment == 0 &&
                          offset <= size - sizeof(shm::EntryHeader);
    if (steps >= max_steps || !in_arena) {
      return Status::Corruption(fmt::format("shared plan segment {}: a chain {} at offset {}",
                                            segment.name(), in_arena ? "loops" : "leaves the arena",
                                            offset));
    }
    shm::EntryHeader header;
    std::memcpy(&header, segment.at(offset), sizeof(header));
    if (sizeof(shm::EntryHeader) + uint64_t{header.payload_bytes} > size - offset) {
      return Status::Corruption(
          fmt::format("shared plan segment {}: the entry at offset {} overruns the segment",
                      segment.name(), offset));
    }
    if (!visit(offset, header)) return Status::Ok();
    offset = header.next;
  }
  return Status::Ok();
}

// The payload of the entry at `offset`, copied out and checked against its checksum on the
// copy (what the caller decodes is exactly what was verified); nullopt when it does not match.
std::optional<std::vector<uint8_t>> VerifiedPayload(const SharedSegment& segment, uint64_t offset,
                                                    const shm::EntryHeader& header) {
  const size_t entry_bytes = sizeof(shm::EntryHeader) + header.payload_bytes;
  std::vector<uint8_t> copy(entry_bytes);
  std::memcpy(copy.data(), segment.at(offset), entry_bytes);
  if (EntryChecksum(copy.data(), copy.size()) != header.checksum) return std::nullopt;
  // The verified copy becomes the payload: drop its header in place, no second copy.
  copy.erase(copy.begin(), copy.begin() + sizeof(shm::EntryHeader));
  return copy;
}

}  // namespace

Status SharedPlanTier::Open(const SharedSegmentOptions& options,
                            std::unique_ptr<SharedPlanTier>* out, bool* recreated) {
  std::unique_ptr<SharedSegment> segment;
  if (Status s = SharedSegment::Open(options, &segment, recreated); !s.ok()) return s;
  *out = std::make_unique<SharedPlanTier>(std::move(segment));
  return Status::Ok();
}

Status SharedPlanTier::ListKeys(const std::string& database_path, std::string_view environment,
                                std::vector<Hash128>* keys, bool allow_shared_writable) {
  keys->clear();
  std::unique_ptr<SharedSegment> segment;
  const SharedSegmentOptions options{.database_path = database_path,
                                     .environment = std::string(environment),
                                     .bytes = shm::kMinSegmentBytes,
                                     .create = false,
                                     .allow_shared_writable = allow_shared_writable};
  if (Status s = SharedSegment::Open(options, &segment); !s.ok()) return s;
  std::unordered_set<Hash128, KeyHash> seen;
  for (uint32_t b = 0; b < shm::kBucketCount; ++b) {
    const uint64_t head = segment->bucket(b).load(std::memory_order_acquire);
    if (Status s = WalkChain(*segment, head, 0,
                             [&](uint64_t, const shm::EntryHeader& header) {
                               const Hash128 key = KeyOf(header.plan_key);
                               if (header.kind != shm::kPlanEntry) return true;
                               if (seen.insert(key).second) keys->push_back(key);
                               return true;
                             });
        !s.ok()) {
      return s;
    }
  }
  return Status::Ok();
}

SharedPlanTier::SharedPlanTier(std::unique_ptr<SharedSegment> segment)
    : segment_(std::move(segment)) {}

SharedPlanTier::~SharedPlanTier() { ReleaseAll(); }

SharedPlanTier::PublishOutcome SharedPlanTier::Publish(uint64_t first_op_hash, const Hash128& key,
                                                       std::span<const uint8_t> encoded_plan) {
  return PublishEntry(first_op_hash, key, shm::kPlanEntry, encoded_plan);
}

uint64_t SharedPlanTier::KernelChainHash(uint64_t key_hash) {
  // Any fixed bijection that is not the identity: "EMBRKRNL" mixed in, then one XXH3 round.
  const uint64_t salted = key_hash ^ 0x4c4e524b52424d45ULL;
  return XXH3_64bits(&salted, sizeof(salted));
}

SharedPlanTier::PublishOutcome SharedPlanTier::PublishKernel(uint64_t key_hash,
                                                             std::span<const uint8_t> binary) {
  return PublishEntry(KernelChainHash(key_hash), Hash128{.low = key_hash, .high = 0},
                      shm::kKernelEntry, binary);
}

uint64_t SharedPlanTier::FactChainHash(std::string_view name) {
  // "EMBRFACT" as the seed: a fact's chain never meets a kernel's or a first op's by design.
  return XXH3_64bits_withSeed(name.data(), name.size(), 0x5443414652424d45ULL);
}

namespace {

Hash128 FactKey(std::string_view name) {
  const XXH128_hash_t hash = XXH3_128bits(name.data(), name.size());
  return {.low = hash.low64, .high = hash.high64};
}

}  // namespace

SharedPlanTier::PublishOutcome SharedPlanTier::PublishFact(std::string_view name,
                                                           std::string_view value) {
  std::vector<uint8_t> payload(4 + name.size() + value.size());
  const uint32_t name_bytes = static_cast<uint32_t>(name.size());
  for (int i = 0; i < 4; ++i) payload[static_cast<size_t>(i)] = (name_bytes >> (8 * i)) & 0xff;
  std::memcpy(payload.data() + 4, name.data(), name.size());
  std::memcpy(payload.data() + 4 + name.size(), value.data(), value.size());
  return PublishEntry(FactChainHash(name), FactKey(name), shm::kFactEntry, payload);
}

Status SharedPlanTier::LookupFact(std::string_view name, std::string* value, bool* found) {
  *found = false;
  value->clear();
  if (broken() || segment_->removed()) return Status::Unavailable(BrokenReason());
  const uint64_t chain = FactChainHash(name);
  const Hash128 key = FactKey(name);
  const uint64_t first = segment_->bucket(chain).load(std::memory_order_acquire);
  const Status s =
      WalkChain(*segment_, first, 0, [&](uint64_t offset, const shm::EntryHeader& header) {
        if (header.kind != shm::kFactEntry || header.first_op_hash != chain ||
            KeyOf(header.plan_key) != key) {
          return true;
        }
        std::optional<std::vector<uint8_t>> payload = VerifiedPayload(*segment_, offset, header);
        if (!payload) {
          ++corrupt_entries_;
          return true;  // an older copy may still be whole
        }
        uint32_t name_bytes = 0;
        for (size_t i = 0; i < 4 && i < payload->size(); ++i) {
          name_bytes |= uint32_t{(*payload)[i]} << (8 * i);
        }
        const std::string_view bytes(reinterpret_cast<const char*>(payload->data()),
                                     payload->size());
        // Another name under the same 128-bit hash: not this one's value.
        if (bytes.size() < 4 || bytes.size() - 4 < name_bytes ||
            bytes.substr(4, name_bytes) != name) {
          return true;
        }
        *value = std::string(bytes.substr(4 + name_bytes));
        *found = true;
        return false;  // the newest whole copy wins
      });
  if (!s.ok()) {
    value->clear();
    *found = false;
    segment_->MarkBroken();
  }
  return s;
}

uint64_t SharedPlanTier::RecipeChainHash(std::string_view workload) {
  // "EMBRRCPE" as the seed: one chain per workload, never a fact's, kernel's or first op's.
  return XXH3_64bits_withSeed(workload.data(), workload.size(), 0x4550435252424d45ULL);
}

namespace {

void PutWord(std::vector<uint8_t>& out, uint64_t word, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(word >> (8 * i)));
}

// Reads `bytes` little-endian bytes at *at; false when the payload ends first.
bool TakeWord(std::span<const uint8_t> payload, size_t* at, int bytes, uint64_t* word) {
  if (payload.size() - *at < static_cast<size_t>(bytes)) return false;
  *word = 0;
  for (int i = 0; i < bytes; ++i)
    *word |= uint64_t{payload[*at + static_cast<size_t>(i)]} << (8 * i);
  *at += static_cast<size_t>(bytes);
  return true;
}

// The recipe entry's key: the workload and the recipe's key, hashed together.
Hash128 RecipeKey(std::string_view workload, uint64_t key) {
  std::vector<uint8_t> bytes(workload.begin(), workload.end());
  PutWord(bytes, key, 8);
  const XXH128_hash_t hash = XXH3_128bits(bytes.data(), bytes.size());
  return {.low = hash.low64, .high = hash.high64};
}

// The recipe of a verified payload when it is `workload`'s; nullopt for another workload's or
// for a payload that is not a recipe's layout.
std::optional<GraphRecipe> ParseRecipe(std::span<const uint8_t> payload,
                                       std::string_view workload) {
  size_t at = 0;
  uint64_t workload_bytes = 0, count = 0;
  GraphRecipe recipe;
  if (!TakeWord(payload, &at, 4, &workload_bytes) || payload.size() - at < workload_bytes ||
      std::string_view(reinterpret_cast<const char*>(payload.data() + at), workload_bytes) !=
          workload) {
    return std::nullopt;
  }
  at += workload_bytes;
  if (!TakeWord(payload, &at, 8, &recipe.key) || !TakeWord(payload, &at, 4, &count) ||
      (payload.size() - at) / 8 < count) {
    return std::nullopt;
  }
  recipe.kernels.resize(count);
  for (uint64_t& kernel : recipe.kernels) TakeWord(payload, &at, 8, &kernel);
  recipe.body.assign(reinterpret_cast<const char*>(payload.data() + at), payload.size() - at);
  return recipe;
}

}  // namespace

SharedPlanTier::PublishOutcome SharedPlanTier::PublishRecipe(std::string_view workload,
                                                             const GraphRecipe& recipe) {
  std::vector<uint8_t> payload;
  payload.reserve(16 + workload.size() + 8 * recipe.kernels.size() + recipe.body.size());
  PutWord(payload, workload.size(), 4);
  payload.insert(payload.end(), workload.begin(), workload.end());
  PutWord(payload, recipe.key, 8);
  PutWord(payload, recipe.kernels.size(), 4);
  for (const uint64_t kernel : recipe.kernels) PutWord(payload, kernel, 8);
  payload.insert(payload.end(), recipe.body.begin(), recipe.body.end());
  return PublishEntry(RecipeChainHash(workload), RecipeKey(workload, recipe.key), shm::kRecipeEntry,
                      payload);
}

Status SharedPlanTier::LookupRecipes(std::string_view workload, std::vector<GraphRecipe>* out,
                                     const RecipeCheck& usable) {
  out->clear();
  if (broken() || segment_->removed()) return Status::Unavailable(BrokenReason());
  const uint64_t chain = RecipeChainHash(workload);
  std::unordered_set<uint64_t> seen;
  const uint64_t first = segment_->bucket(chain).load(std::memory_order_acquire);
  const Status s =
      WalkChain(*segment_, first, 0, [&](uint64_t offset, const shm::EntryHeader& header) {
        if (header.kind != shm::kRecipeEntry || header.first_op_hash != chain) return true;
        std::optional<std::vector<uint8_t>> payload = VerifiedPayload(*segment_, offset, header);
        if (!payload) {
          ++corrupt_entries_;
          return true;  // an older copy may still be whole
        }
        std::optional<GraphRecipe> recipe = ParseRecipe(*payload, workload);
        // Another workload's under the same chain, or a key the header does not name.
        if (!recipe || KeyOf(header.plan_key) != RecipeKey(workload, recipe->key)) return true;
        if (seen.contains(recipe->key) || (usable && !usable(*recipe))) return true;
        seen.insert(recipe->key);
        out->push_back(std::move(*recipe));  // the newest usable one wins
        return true;
      });
  if (!s.ok()) {
    out->clear();
    segment_->MarkBroken();
  }
  return s;
}

std::string SharedPlanTier::BrokenReason() const {
  if (segment_->lost()) return "another process truncated the shared plan segment under this one";
  if (segment_->removed()) return "the shared plan segment was removed from /dev/shm";
  return "the shared plan segment is marked broken";
}

Status SharedPlanTier::LookupKernel(uint64_t key_hash, std::vector<uint8_t>* binary, bool* found) {
  *found = false;
  binary->clear();
  if (broken() || segment_->removed()) return Status::Unavailable(BrokenReason());
  const uint64_t chain = KernelChainHash(key_hash);
  const uint64_t first = segment_->bucket(chain).load(std::memory_order_acquire);
  const Status s =
      WalkChain(*segment_, first, 0, [&](uint64_t offset, const shm::EntryHeader& header) {
        const Hash128 key = KeyOf(header.plan_key);
        if (header.kind != shm::kKernelEntry || header.first_op_hash != chain ||
            key.low != key_hash || key.high != 0) {
          return true;
        }
        std::optional<std::vector<uint8_t>> payload = VerifiedPayload(*segment_, offset, header);
        if (!payload) {
          ++corrupt_entries_;
          return true;  // an older copy may still be whole
        }
        *binary = std::move(*payload);
        *found = true;
        return false;  // the newest whole copy wins
      });
  if (!s.ok()) {
    binary->clear();
    *found = false;
    segment_->MarkBroken();
  }
  return s;
}

SharedPlanTier::PublishOutcome SharedPlanTier::PublishEntry(uint64_t first_op_hash,
                                                            const Hash128& key, shm::EntryKind kind,
                                                            std::span<const uint8_t> encoded_plan) {
  if (broken() || segment_->removed()) return PublishOutcome::kBroken;
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
  header->kind = kind;
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
  // Headers only; a damaged chain is left for Lookup to report.
  bool found = false;
  const uint64_t head = segment_->bucket(first_op_hash).load(std::memory_order_acquire);
  const Status s = WalkChain(*segment_, head, 0, [&](uint64_t, const shm::EntryHeader& header) {
    found = header.first_op_hash == first_op_hash;
    return !found;
  });
  return s.ok() && found;
}

Status SharedPlanTier::Lookup(uint64_t first_op_hash, std::vector<Entry>* out, uint64_t since,
                              uint64_t* head) {
  out->clear();
  if (broken() || segment_->removed()) return Status::Unavailable(BrokenReason());
  std::unordered_set<Hash128, KeyHash> seen;
  const uint64_t first = segment_->bucket(first_op_hash).load(std::memory_order_acquire);
  if (head != nullptr) *head = first;
  // Entries are linked in front, so everything from `since` on was there at the last look.
  const Status s =
      WalkChain(*segment_, first, since, [&](uint64_t offset, const shm::EntryHeader& header) {
        const Hash128 key = KeyOf(header.plan_key);
        if (header.kind != shm::kPlanEntry || header.first_op_hash != first_op_hash ||
            seen.contains(key)) {
          return true;
        }
        std::optional<std::vector<uint8_t>> payload = VerifiedPayload(*segment_, offset, header);
        if (!payload) {
          ++corrupt_entries_;
          return true;
        }
        seen.insert(key);
        out->push_back({key, std::move(*payload)});
        return true;
      });
  if (!s.ok()) {
    out->clear();
    segment_->MarkBroken();
  }
  return s;
}

}  // namespace ember
