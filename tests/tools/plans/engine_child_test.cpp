// The engine side of the ember-plans tests: this binary re-executed with EMBER_PLAN_DB set runs
// a small program through the public API, so the databases the CLI reads are written by the
// real engine (explorations, publication, hits, workloads).
//   seed:   the seed's expression and a softmax at 64x64 and 32x32 (fused ElementWise and
//           reduce plans; SeedAndSoftmax, tests/common/workloads.h);
//   stream: keeps publishing new plans for about a second (PublishingForAWhile);
//   stream-until-stopped: the same until the file EMBER_TEST_STOP_FILE exists, for the tests
//           that read while a process writes: they, not a duration, decide when it has
//           written long enough, however slowly a loaded machine runs either side;
//   forgeable: the Reduce plans issue 13's forgeries edit (ForgeableProgram);
//   seed64x64, seed64x32: the seed's expression at one shape (SeedAt), for the misses that
//           `ember-plans explain` reads (explain_command_test.cpp);
//   lengths: a Cat whose arity changes every step (ChangingLengths).
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "tests/common/workloads.h"

namespace ember {
namespace {

TEST(DISABLED_PlansEngineChild, Run) {
  const char* program = std::getenv("EMBER_TEST_PROGRAM");
  ASSERT_NE(program, nullptr);
  const std::string name = program;
  if (name == "stream") {
    (void)test::PublishingForAWhile();
  } else if (name == "stream-until-stopped") {
    const char* stop = std::getenv("EMBER_TEST_STOP_FILE");
    ASSERT_NE(stop, nullptr);
    // A test that died before asking leaves no child publishing: the parent gone (re-parented)
    // or ten minutes, far past any test, end it too.
    const pid_t parent = getppid();
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(10);
    (void)test::PublishingUntil([&] {
      return std::filesystem::exists(stop) || getppid() != parent ||
             std::chrono::steady_clock::now() >= give_up;
    });
  } else if (name == "seed64x64") {
    (void)test::SeedAt(64, 64);
  } else if (name == "seed64x32") {
    (void)test::SeedAt(64, 32);
  } else if (name == "lengths") {
    (void)test::ChangingLengths();
  } else if (name == "forgeable") {
    (void)test::ForgeableProgram();
  } else {
    (void)test::SeedAndSoftmax();
  }
  Sync();
}

}  // namespace
}  // namespace ember
