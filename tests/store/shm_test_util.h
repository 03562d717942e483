// Helpers for the shared-memory tier tests: a database path per test (segments are named after
// it), removal of its segments at the end, payloads that name themselves, and forked children.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "store/shared_plan_tier.h"
#include "tests/temp_dir.h"

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

// Runs `body` in a forked child, which leaves with _exit(body() ? 0 : 1) (no gtest, no
// destructors of the parent's objects). Returns the pid.
inline pid_t Fork(const std::function<bool()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(body() ? 0 : 1);
  return pid;
}

// The child's wait status.
inline int Reap(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

}  // namespace ember::test
