#include "store/shm/shared_segment_info.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>

#include <fmt/format.h>
#include <xxhash.h>
#include <boost/interprocess/exceptions.hpp>
#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/shared_memory_object.hpp>

#include "engine/core/clock.h"
#include "store/shm/process_token.h"
#include "store/shm/shared_plan_tier.h"
#include "store/shm/shared_segment.h"
#include "store/shm/shared_segment_trust.h"

namespace ember {
namespace {

namespace bip = boost::interprocess;

void TakeStat(const struct stat& st, SharedSegmentInfo* info) {
  info->bytes = static_cast<uint64_t>(st.st_size);
  info->owner_uid = st.st_uid;
  info->mode = st.st_mode & 07777;
}

const char* StateName(uint32_t state) {
  switch (state) {
    case shm::kInitializing: return "initializing";
    case shm::kReady: return "ready";
    case shm::kBroken: return "broken";
  }
  return nullptr;
}

uint32_t LiveClaims(const uint8_t* base) {
  const auto* slots = reinterpret_cast<const shm::ClaimSlot*>(base + shm::kClaimsOffset);
  const int64_t now = HostMonotonicMillis();
  uint32_t live = 0;
  for (size_t i = 0; i < shm::kClaimSlots; ++i) {
    const uint64_t owner = slots[i].owner.load(std::memory_order_acquire);
    if (owner == 0 || slots[i].expires_ms.load(std::memory_order_acquire) <= now) continue;
    if (ProcessTokenAlive(owner)) ++live;
  }
  return live;
}

// Reads the fixed part of the segment `base` maps (st_size `bytes`, at least kDataOffset) into
// *info. The checks and their wording follow SharedSegment::Open's; the ones that say the
// segment is another kind of thing come first, so that its fields are only read from a header
// of this layout.
void ReadHeader(const uint8_t* base, std::optional<uint64_t> identity, SharedSegmentInfo* info) {
  const auto& h = *reinterpret_cast<const shm::SegmentHeader*>(base);
  if (h.magic != shm::kSegmentMagic) {
    info->problem = "it is not an ember plan segment";
    return;
  }
  info->layout_version = h.layout_version;
  if (h.layout_version != shm::kSegmentLayoutVersion) {
    info->problem = fmt::format("its layout is version {}, this tool's is {}", h.layout_version,
                                shm::kSegmentLayoutVersion);
    return;
  }
  if (h.data_offset != shm::kDataOffset || h.total_bytes != info->bytes) {
    info->problem = "its header does not match its size";
    return;
  }
  const uint64_t top = h.top.load(std::memory_order_acquire);
  info->used_bytes = std::min(top, info->bytes) - std::min<uint64_t>(top, h.data_offset);
  info->entries = h.entries.load(std::memory_order_relaxed);
  info->generation = h.generation.load(std::memory_order_acquire);
  info->publish_skipped = h.publish_skipped.load(std::memory_order_relaxed);
  info->created_ms = static_cast<int64_t>(h.created_ms);
  info->creator_pid = h.creator_pid;
  info->live_claims = LiveClaims(base);
  if (identity.has_value() && h.identity != *identity) {
    info->problem = "it belongs to another database (name clash)";
    return;
  }
  const uint32_t state = h.state.load(std::memory_order_acquire);
  const char* name = StateName(state);
  if (name == nullptr) {
    info->problem = fmt::format("its state word is {}", state);
    return;
  }
  info->state = name;
  if (state == shm::kReady && top < shm::kDataOffset) info->problem = "its allocator is corrupt";
}

// Marks *info "untrusted" when the object whose stat is `st` may not be used (Note [Shared
// segment trust]). Open checks trust first, so this reason wins over any other problem.
void JudgeTrust(const std::string& database_path, const struct stat& st, bool allow_shared_writable,
                SharedSegmentInfo* info) {
  uid_t database_owner = 0;
  SegmentModeFor(database_path, &database_owner);
  if (std::string why = SegmentDistrust(st, database_owner, allow_shared_writable); !why.empty()) {
    info->state = "untrusted";
    info->problem = std::move(why);
  }
}

// Fills *info for the segment info->name. False when it no longer exists. A segment that may
// not be trusted is still described (read-only), with the reason as its problem.
bool Inspect(const std::string& database_path, bool allow_shared_writable,
             SharedSegmentInfo* info) {
  const std::optional<uint64_t> identity =
      info->environment.has_value()
          ? std::optional<uint64_t>(SharedSegment::IdentityFor(database_path, *info->environment))
          : std::nullopt;
  try {
    bip::shared_memory_object object(bip::open_only, info->name.c_str(), bip::read_only);
    struct stat st {};
    if (::fstat(object.get_mapping_handle().handle, &st) != 0) {
      info->problem = fmt::format("cannot stat it: {}", std::strerror(errno));
      return true;
    }
    TakeStat(st, info);
    if (info->bytes >= shm::kDataOffset) {
      // The fixed part only, read-only: nothing here can change the segment.
      bip::mapped_region region(object, bip::read_only, 0, shm::kDataOffset);
      ReadHeader(static_cast<const uint8_t*>(region.get_address()), identity, info);
    }
    // Too big a segment is still described (its header is readable), but Open recreates it.
    if (info->problem.empty()) info->problem = SharedSegment::UnusableSize(info->bytes);
    JudgeTrust(database_path, st, allow_shared_writable, info);
    return true;
  } catch (const bip::interprocess_exception& e) {
    if (e.get_error_code() == bip::not_found_error) return false;
    struct stat st {};
    const std::string path = "/dev/shm/" + info->name;
    const bool stated = ::stat(path.c_str(), &st) == 0;
    if (!stated && errno == ENOENT) return false;
    info->problem = fmt::format("cannot read it: {}", e.what());
    if (stated) {
      TakeStat(st, info);
      JudgeTrust(database_path, st, allow_shared_writable, info);  // often why it cannot be read
    }
    return true;
  }
}

// The distinct plan keys of a ready segment this user owns (ListKeys maps it read-write).
void CountPlanKeys(const std::string& database_path, bool allow_shared_writable,
                   SharedSegmentInfo* info) {
  if (info->state != "ready" || !info->problem.empty() || !info->environment.has_value() ||
      info->owner_uid != ::geteuid()) {
    return;
  }
  std::vector<Hash128> keys;
  const Status s =
      SharedPlanTier::ListKeys(database_path, *info->environment, &keys, allow_shared_writable);
  if (s.ok()) {
    info->plan_keys = keys.size();
  } else if (s.code() == Status::Code::kCorruption) {
    info->problem = "its entry chains leave the arena or loop";
  }
}

}  // namespace

Status InspectSharedSegments(const std::string& database_path,
                             const std::vector<std::string>& environments,
                             std::vector<SharedSegmentInfo>* out, bool allow_shared_writable) {
  out->clear();
  std::error_code ec;
  if (!std::filesystem::is_directory("/dev/shm", ec)) {
    return Status::Unavailable("there is no /dev/shm: POSIX shared memory is not available here");
  }
  std::vector<std::string> names = SharedSegment::NamesFor(database_path);
  std::sort(names.begin(), names.end());
  for (std::string& name : names) {
    SharedSegmentInfo info;
    info.name = std::move(name);
    for (const std::string& environment : environments) {
      if (SharedSegment::NameFor(database_path, environment) == info.name) {
        info.environment = environment;
        break;
      }
    }
    if (!Inspect(database_path, allow_shared_writable, &info)) continue;
    CountPlanKeys(database_path, allow_shared_writable, &info);
    if (!info.problem.empty() && info.state != "untrusted") info.state = "unusable";
    out->push_back(std::move(info));
  }
  return Status::Ok();
}

}  // namespace ember
