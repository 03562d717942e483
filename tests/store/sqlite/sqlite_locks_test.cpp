// Note [One descriptor per database file]: opening the same plan database a second time in one
// process (the engine opens a reader and a writer connection) must not drop the POSIX locks
// the first connection holds, or another process may reset the WAL under it.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::TempDir;
using test::OpenRepository;

// Lines of /proc/locks held by this process on `path`'s inode.
int LocksHeldOn(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0);
  const std::string inode = ":" + std::to_string(st.st_ino) + " ";
  const std::string pid = " " + std::to_string(getpid()) + " ";
  std::ifstream in("/proc/locks");
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    if (line.find(pid) != std::string::npos && line.find(inode) != std::string::npos) ++n;
  }
  return n;
}

TEST(SqliteLocks, ASecondConnectionInTheProcessKeepsTheFirstOnesLocks) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  std::unique_ptr<PlanRepository> first = OpenRepository(path);
  ASSERT_NE(first, nullptr);
  const int held = LocksHeldOn(path);
  ASSERT_GT(held, 0) << "a WAL connection holds a shared lock on the database file";
  std::unique_ptr<PlanRepository> second = OpenRepository(path);
  ASSERT_NE(second, nullptr);
  EXPECT_GE(LocksHeldOn(path), held);
  second.reset();
  EXPECT_GE(LocksHeldOn(path), held);
}

}  // namespace
}  // namespace ember
