// Note [Uncapped growth] (engine/stream/uncapped_growth.h): with no exploration cap, a program
// that never repeats explores and keeps a plan at every step; the engine says so once, at
// EMBER_LOG=medium, with the advice `ember-plans explain` gives (issue 40, item 9).
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "engine/core/config.h"
#include "engine/core/log.h"
#include "engine/stream/uncapped_growth.h"
#include "tests/api/api_test_util.h"

namespace ember {
namespace {

constexpr char kNotice[] = "explorations in this process with no exploration cap";

size_t Notices(const ScopedLogCapture& capture) {
  size_t n = 0;
  for (const std::string& line : capture.lines()) n += line.find(kNotice) != std::string::npos;
  return n;
}

// A Cat of `arity` tensors, then an op: each arity is a program of its own (the attribute
// differs), so each explores, as a sequence length that changes every step does.
void CatOf(int arity) {
  std::vector<Tensor> parts;
  for (int i = 0; i < arity; ++i) parts.push_back(Tensor::Full({1, 2}, 0.5, DType::kF32));
  (void)(Cat(std::move(parts), 0).Exp() * 2.0).ToVector<float>();
}

// Runs `programs` programs that never repeat under `cap`; returns the explorations.
uint64_t RunNeverRepeating(std::optional<size_t> cap, int programs) {
  Config config;
  config.plan_db = "off";
  config.max_explorations = cap;
  SetGlobalConfigForTesting(config);
  ReleaseDevice(Device::Cpu());
  for (int arity = 1; arity <= programs; ++arity) CatOf(arity);
  const uint64_t explorations = GetStats(Device::Cpu()).explorations;
  SetGlobalConfigForTesting(Config{});
  ReleaseDevice(Device::Cpu());
  return explorations;
}

// The process-wide count is brought near the notice first (NoteUncappedExploration, as the
// processor calls it), so that a few real programs cross it: a Cat of hundreds of tensors would
// take minutes to search. Each test runs in its own process (ctest), so the count starts at 0.
void NearTheNotice() {
  for (size_t i = 0; i + 5 < kUncappedNotice; ++i) NoteUncappedExploration();
}

TEST(UncappedGrowth, SaidOnceWhenAProgramNeverRepeatsWithoutACap) {
  NearTheNotice();
  ScopedLogCapture capture(LogLevel::kMedium);
  EXPECT_GE(RunNeverRepeating(std::nullopt, 20), 20u);
  EXPECT_EQ(Notices(capture), 1u);
  for (const std::string& line : capture.lines()) {
    if (line.find(kNotice) == std::string::npos) continue;
    EXPECT_THAT(line, ::testing::HasSubstr("ember-plans explain"));
    EXPECT_THAT(line, ::testing::HasSubstr("bucket lengths"));
  }
  // Once per process: more explorations say nothing more.
  RunNeverRepeating(std::nullopt, 20);
  EXPECT_EQ(Notices(capture), 1u);
}

TEST(UncappedGrowth, NotSaidUnderACap) {
  NearTheNotice();
  ScopedLogCapture capture(LogLevel::kMedium);
  EXPECT_GE(RunNeverRepeating(size_t{10000}, 20), 20u);
  EXPECT_EQ(Notices(capture), 0u);
}

TEST(UncappedGrowth, NotSaidAtBasic) {
  NearTheNotice();
  ScopedLogCapture capture(LogLevel::kBasic);
  RunNeverRepeating(std::nullopt, 20);
  EXPECT_EQ(Notices(capture), 0u);
}

}  // namespace
}  // namespace ember
