// GlobalConfig: the process-wide configuration, loaded once from the real environment, which
// prints its warnings once to stderr.
#include "engine/core/config.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace ember {
namespace {

// Runs in a child process (threadsafe death-test style re-executes the binary), so the real
// environment can be set and GlobalConfig's one-time load observed.
void LoadGlobalTwiceAndExit() {
  for (const char* name : {"EMBER_FUSION", "EMBER_MAX_EXPLORATIONS", "EMBER_LOG", "EMBER_PLAN_DB",
                           "EMBER_WORKLOAD", "EMBER_SHM"}) {
    unsetenv(name);
  }
  setenv("EMBER_CONFIG", "/dev/null", 1);
  setenv("EMBER_MAX_BLOCKS", "abc", 1);
  const Config& first = GlobalConfig();
  const Config& second = GlobalConfig();
  std::exit(&first == &second && first.max_blocks == 5 ? 0 : 1);
}

TEST(GlobalConfig, PrintsItsWarningsOnceToStderr) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(LoadGlobalTwiceAndExit(), testing::ExitedWithCode(0),
              "^ember: config: EMBER_MAX_BLOCKS must be a positive integer, got \"abc\"; "
              "using 5\n$");
}

}  // namespace
}  // namespace ember
