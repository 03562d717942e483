// The table of settings (every key, its variable and its range, enforced alike from both
// layers) and the log levels' order and names.
#include "engine/core/config.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "tests/core/config_fixture.h"
#include "tests/core/config_test_util.h"

namespace ember {
namespace {

using config_test::ConfigTest;
using testing::ElementsAre;
using testing::IsEmpty;
using testing::StartsWith;

// --- The table of settings ----------------------------------------------------------------------

// Every file key has its variable, except [fusion.log] file and [store] plan_db (the older
// spelling of path, whose variable is EMBER_PLAN_DB); docs/CONFIGURATION.md lists the same.
TEST(ConfigSettings, EveryKeyHasItsVariable) {
  std::vector<std::string> rows;
  std::set<std::string_view> variables;
  for (const ConfigSetting& setting : ConfigSettings()) {
    rows.push_back(fmt::format("[{}] {} {}", setting.table, setting.key, setting.variable));
    if (!setting.variable.empty()) {
      EXPECT_TRUE(variables.insert(setting.variable).second) << setting.variable;
    }
  }
  EXPECT_THAT(
      rows,
      ElementsAre("[fusion] enabled EMBER_FUSION", "[fusion.search] max_blocks EMBER_MAX_BLOCKS",
                  "[fusion.search] max_explorations EMBER_MAX_EXPLORATIONS",
                  "[fusion.search] search_sync_tail EMBER_SEARCH_SYNC_TAIL",
                  "[fusion.log] level EMBER_LOG", "[fusion.log] file ", "[store] plan_db ",
                  "[store] path EMBER_PLAN_DB", "[store] workload EMBER_WORKLOAD",
                  "[store] allow_shared_writable EMBER_ALLOW_SHARED_WRITABLE",
                  "[store] shm EMBER_SHM", "[store] shm_bytes EMBER_SHM_BYTES",
                  "[store] shm_wait_ms EMBER_SHM_WAIT_MS",
                  "[runtime] launch_records EMBER_LAUNCH_RECORDS", "[runtime] graphs EMBER_GRAPHS",
                  "[runtime] graph_after EMBER_GRAPH_AFTER",
                  "[runtime] graph_cache EMBER_GRAPH_CACHE", "[cpu] math EMBER_CPU_MATH"));
}

// The text between " must be " and ", got " of a warning: what the setting accepts.
std::string Expected(const std::string& warning) {
  const size_t from = warning.find(" must be ");
  const size_t to = warning.find(", got ");
  if (from == std::string::npos || to == std::string::npos || to < from) return warning;
  return warning.substr(from, to - from);
}

// Every number takes its bounds and refuses one past either, from the file and from its
// variable alike, and both layers describe the range in the same words.
TEST_F(ConfigTest, EveryRangeIsEnforcedFromBothLayers) {
  constexpr uint64_t kTomlMax = std::numeric_limits<int64_t>::max();
  int checked = 0;
  for (const ConfigSetting& setting : ConfigSettings()) {
    if (!setting.integer) continue;
    SCOPED_TRACE(setting.key);
    ++checked;
    auto file = [&](const std::string& value) {
      return LoadToml(fmt::format("[{}]\n{} = {}\n", setting.table, setting.key, value)).warnings;
    };
    auto env = [&](const std::string& value) {
      return LoadEnv({{std::string(setting.variable), value}}).warnings;
    };
    const std::string below = setting.min == 0 ? "-1" : std::to_string(setting.min - 1);
    const std::string above = setting.max == std::numeric_limits<uint64_t>::max()
                                  ? "18446744073709551616"
                                  : std::to_string(setting.max + 1);
    EXPECT_THAT(file(std::to_string(setting.min)), IsEmpty());
    EXPECT_THAT(file(std::to_string(std::min(setting.max, kTomlMax))), IsEmpty());
    EXPECT_THAT(env(std::to_string(setting.min)), IsEmpty());
    EXPECT_THAT(env(std::to_string(setting.max)), IsEmpty());
    const std::vector<std::string> from_file = file(below);
    const std::vector<std::string> from_env = env(below);
    ASSERT_EQ(from_file.size(), 1u);
    ASSERT_EQ(from_env.size(), 1u);
    EXPECT_THAT(from_env[0],
                StartsWith(fmt::format("ember: config: {} must be ", setting.variable)));
    EXPECT_EQ(Expected(from_file[0]), Expected(from_env[0]));
    if (setting.max < kTomlMax) {
      EXPECT_EQ(file(above).size(), 1u) << above;
    }
    EXPECT_EQ(env(above).size(), 1u) << above;
  }
  EXPECT_EQ(checked, 7);
}

// --- Levels --------------------------------------------------------------------------------------

TEST(LogLevel, IsOrderedAsBurns) {
  EXPECT_LT(LogLevel::kDisabled, LogLevel::kBasic);
  EXPECT_LT(LogLevel::kBasic, LogLevel::kMedium);
  EXPECT_LT(LogLevel::kMedium, LogLevel::kFull);
}

TEST(LogLevel, NamesRoundTrip) {
  for (LogLevel level :
       {LogLevel::kDisabled, LogLevel::kBasic, LogLevel::kMedium, LogLevel::kFull}) {
    EXPECT_EQ(ParseLogLevel(LogLevelName(level)), level) << LogLevelName(level);
  }
  EXPECT_EQ(ParseLogLevel(""), std::nullopt);
  EXPECT_EQ(ParseLogLevel("ful"), std::nullopt);
  EXPECT_EQ(ParseLogLevel(" full"), std::nullopt);
}

// --- [cpu] math ----------------------------------------------------------------------------------

TEST_F(ConfigTest, CpuMathIsU10UnlessTheFileOrTheEnvironmentSaysU35) {
  EXPECT_EQ(LoadEnv({}).config.cpu_math, CpuMath::kU10);
  EXPECT_EQ(LoadToml("[cpu]\nmath = \"u35\"\n").config.cpu_math, CpuMath::kU35);
  EXPECT_EQ(LoadEnv({{"EMBER_CPU_MATH", "U35"}}).config.cpu_math, CpuMath::kU35);
  const LoadedConfig back = LoadToml("[cpu]\nmath = \"u35\"\n", {{"EMBER_CPU_MATH", "u10"}});
  EXPECT_THAT(back.warnings, IsEmpty());
  EXPECT_EQ(back.config.cpu_math, CpuMath::kU10);
}

TEST_F(ConfigTest, CpuMathRefusesOtherAccuraciesAndKeepsTheLayerBelow) {
  const LoadedConfig env = LoadToml("[cpu]\nmath = \"u35\"\n", {{"EMBER_CPU_MATH", "u40"}});
  EXPECT_EQ(env.config.cpu_math, CpuMath::kU35);
  EXPECT_THAT(env.warnings, ElementsAre("ember: config: EMBER_CPU_MATH must be u10 or u35, got "
                                        "\"u40\"; using u35"));
  const LoadedConfig file = LoadToml("[cpu]\nmath = 35\n");
  EXPECT_EQ(file.config.cpu_math, CpuMath::kU10);
  ASSERT_EQ(file.warnings.size(), 1u);
  EXPECT_THAT(file.warnings[0], testing::HasSubstr("[cpu] math must be \"u10\" or \"u35\""));
}

TEST(CpuMath, NamesRoundTrip) {
  for (CpuMath math : {CpuMath::kU10, CpuMath::kU35}) {
    EXPECT_EQ(ParseCpuMath(CpuMathName(math)), math) << CpuMathName(math);
  }
  EXPECT_EQ(ParseCpuMath("u1"), std::nullopt);
  EXPECT_EQ(ParseCpuMath(""), std::nullopt);
}

}  // namespace
}  // namespace ember
