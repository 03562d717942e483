// Helpers for the shared-memory tier tests: a database path per test (segments are named after
// it), removal of its segments at the end, payloads that name themselves, a second user (in a
// forked child, tests/common/process.h), and the forgery such a user can make in a segment it
// can write.
#pragma once

#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "store/shm/shared_plan_tier.h"
#include "store/shm/shared_segment_layout.h"
#include "tests/common/process.h"
#include "tests/common/temp_dir.h"

namespace ember::test {

// A fresh (empty, 0600) database file: segments take its path and mode.
class ShmFixture : public testing::Test {
 protected:
  ShmFixture() {
    db_ = dir_.Write("plans.db", "");
    ::chmod(db_.c_str(), 0600);
  }
  ~ShmFixture() override { SharedSegment::RemoveAll(db_); }

  SharedSegmentOptions Options(uint64_t bytes = uint64_t{4} << 20,
                               std::string environment = "env-a") const {
    return {.database_path = db_, .environment = std::move(environment), .bytes = bytes};
  }
  std::unique_ptr<SharedPlanTier> OpenTier(uint64_t bytes = uint64_t{4} << 20,
                                           std::string environment = "env-a",
                                           bool* recreated = nullptr) const {
    std::unique_ptr<SharedPlanTier> tier;
    const Status s = SharedPlanTier::Open(Options(bytes, std::move(environment)), &tier, recreated);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return tier;
  }
  std::string SegmentFile(std::string_view environment = "env-a") const {
    return "/dev/shm/" + SharedSegment::NameFor(db_, environment);
  }

  TempDir dir_;
  std::string db_;
};

inline Hash128 Key(uint64_t n) { return {.low = n * 0x9e3779b97f4a7c15ULL + 1, .high = n}; }

// `size` bytes that encode `n`, so a reader can tell which publication it got.
inline std::vector<uint8_t> Payload(uint64_t n, size_t size = 600) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>((n * 131 + i * 7) & 0xff);
  std::memcpy(bytes.data(), &n, sizeof(n));
  return bytes;
}

// The unprivileged user (nobody) that plays the second user of the host.
inline constexpr uid_t kOtherUser = 65534;
// RunAsOtherUser's exit status when this process cannot switch users (not root, no CAP_SETUID).
inline constexpr int kCannotSwitchUser = 77;

// In a forked child only: makes this process kOtherUser (uid and gid, no supplementary groups).
// False when the switch was refused.
inline bool BecomeOtherUser() {
  return ::setgroups(0, nullptr) == 0 && ::setgid(kOtherUser) == 0 && ::setuid(kOtherUser) == 0 &&
         ::geteuid() == kOtherUser;
}

// Runs `body` in a forked child that has become kOtherUser. Returns how the child ended
// (test::WaitChild): 0 when body returned true, 1 when false, kCannotSwitchUser when the switch
// was refused.
inline int RunAsOtherUser(const std::function<bool()>& body) {
  return WaitChild(ForkChild([&] {
    if (!BecomeOtherUser()) return kCannotSwitchUser;
    return body() ? 0 : 1;
  }));
}

// What a user who can write the segment file `file` does to forge a plan: through a mapping of
// its own, changes one byte in the payload of the newest entry of the first non-empty bucket and
// recomputes that entry's checksum (XXH3-64 over the bytes the layout names: no secret). False
// when it cannot open or map the file or finds no entry.
inline bool ForgeEntry(const std::string& file) {
  const int fd = ::open(file.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  void* map = MAP_FAILED;
  if (::fstat(fd, &st) == 0 && static_cast<uint64_t>(st.st_size) >= shm::kDataOffset) {
    map =
        ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  }
  ::close(fd);
  if (map == MAP_FAILED) return false;
  auto* base = static_cast<uint8_t*>(map);
  const auto* buckets = reinterpret_cast<const uint64_t*>(base + shm::kBucketsOffset);
  uint64_t offset = 0;
  for (uint32_t b = 0; b < shm::kBucketCount && offset == 0; ++b) offset = buckets[b];
  if (offset != 0) {
    auto* entry = reinterpret_cast<shm::EntryHeader*>(base + offset);
    base[offset + sizeof(shm::EntryHeader) + entry->payload_bytes / 2] ^= 0x01;
    constexpr size_t kFrom = offsetof(shm::EntryHeader, first_op_hash);
    entry->checksum =
        XXH3_64bits(base + offset + kFrom, sizeof(shm::EntryHeader) - kFrom + entry->payload_bytes);
  }
  ::munmap(map, static_cast<size_t>(st.st_size));
  return offset != 0;
}

}  // namespace ember::test
