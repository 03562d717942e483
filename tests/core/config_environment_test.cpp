// LoadConfig's environment layer: EMBER_* variables override the file key by key, empty ones
// count as unset, and the switches and EMBER_LOG take every documented spelling.
#include "engine/core/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/core/config_fixture.h"
#include "tests/core/config_test_util.h"

namespace ember {
namespace {

using config_test::ConfigTest;
using config_test::EnvFrom;
using config_test::TempDir;
using testing::ElementsAre;
using testing::IsEmpty;

TEST_F(ConfigTest, EnvironmentSetsEveryKey) {
  LoadedConfig loaded = LoadEnv({{"EMBER_FUSION", "off"},
                                 {"EMBER_MAX_BLOCKS", "11"},
                                 {"EMBER_MAX_EXPLORATIONS", "3"},
                                 {"EMBER_LOG", "basic"},
                                 {"EMBER_PLAN_DB", "off"},
                                 {"EMBER_WORKLOAD", "bench"},
                                 {"EMBER_SHM", "off"},
                                 {"EMBER_SHM_BYTES", "2097152"},
                                 {"EMBER_SHM_WAIT_MS", "250"},
                                 {"EMBER_ALLOW_SHARED_WRITABLE", "on"}});
  EXPECT_THAT(loaded.warnings, IsEmpty());
  EXPECT_EQ(loaded.config.shm_bytes, 2097152u);
  EXPECT_EQ(loaded.config.shm_wait_ms, 250u);
  EXPECT_TRUE(loaded.config.allow_shared_writable);
  EXPECT_FALSE(loaded.config.fusion_enabled);
  EXPECT_EQ(loaded.config.max_blocks, 11u);
  EXPECT_EQ(loaded.config.max_explorations, 3u);
  EXPECT_EQ(loaded.config.log_level, LogLevel::kBasic);
  EXPECT_EQ(loaded.config.log_file, "");  // A level alone logs to stderr.
  EXPECT_EQ(loaded.config.plan_db, "off");
  EXPECT_EQ(loaded.config.workload, "bench");
  EXPECT_FALSE(loaded.config.shm);
}

TEST_F(ConfigTest, EnvironmentOverridesTheFileKeyByKey) {
  LoadedConfig loaded = LoadToml(R"(
[fusion]
enabled = false
[fusion.search]
max_blocks = 12
max_explorations = 40
[fusion.log]
level = "medium"
file = "fusion.log"
[store]
plan_db = "plans.db"
workload = "train"
shm = false
)",
                                 {{"EMBER_FUSION", "on"},
                                  {"EMBER_MAX_BLOCKS", "2"},
                                  {"EMBER_LOG", "full"},
                                  {"EMBER_WORKLOAD", "eval"},
                                  {"EMBER_SHM", "on"}});
  EXPECT_THAT(loaded.warnings, IsEmpty());
  EXPECT_TRUE(loaded.config.fusion_enabled);            // env
  EXPECT_EQ(loaded.config.max_blocks, 2u);              // env
  EXPECT_EQ(loaded.config.max_explorations, 40u);       // file
  EXPECT_EQ(loaded.config.log_level, LogLevel::kFull);  // env
  EXPECT_EQ(loaded.config.log_file, "fusion.log");      // file: EMBER_LOG keeps the file sink
  EXPECT_EQ(loaded.config.plan_db, "plans.db");         // file
  EXPECT_EQ(loaded.config.workload, "eval");            // env
  EXPECT_TRUE(loaded.config.shm);                       // env
}

TEST_F(ConfigTest, EnvironmentUnlimitedClearsTheFilesExplorationCap) {
  LoadedConfig loaded = LoadToml("[fusion.search]\nmax_explorations = 40\n",
                                 {{"EMBER_MAX_EXPLORATIONS", "unlimited"}});
  EXPECT_THAT(loaded.warnings, IsEmpty());
  EXPECT_EQ(loaded.config.max_explorations, std::nullopt);
}

TEST_F(ConfigTest, EnvironmentExplorationCapOfZero) {
  LoadedConfig loaded = LoadEnv({{"EMBER_MAX_EXPLORATIONS", "0"}});
  EXPECT_THAT(loaded.warnings, IsEmpty());
  EXPECT_EQ(loaded.config.max_explorations, 0u);
}

TEST_F(ConfigTest, EmptyEnvironmentValuesCountAsUnset) {
  LoadedConfig loaded = LoadToml(
      "[fusion.search]\nmax_blocks = 12\n[fusion.log]\nlevel = \"basic\"\n",
      {{"EMBER_MAX_BLOCKS", ""}, {"EMBER_LOG", ""}, {"EMBER_FUSION", ""}, {"EMBER_PLAN_DB", ""}});
  EXPECT_THAT(loaded.warnings, IsEmpty());
  EXPECT_EQ(loaded.config.max_blocks, 12u);
  EXPECT_EQ(loaded.config.log_level, LogLevel::kBasic);
  EXPECT_TRUE(loaded.config.fusion_enabled);
}

TEST_F(ConfigTest, EmptyEmberConfigFallsBackToTheDefaultFile) {
  const std::string fallback = dir_.Write("default.toml", "[fusion.search]\nmax_blocks = 7\n");
  LoadedConfig loaded = LoadConfig(EnvFrom({{"EMBER_CONFIG", ""}}), fallback);
  EXPECT_EQ(loaded.config.max_blocks, 7u);
}

struct SwitchCase {
  const char* text;
  bool value;
};

class EnvSwitchSpelling : public testing::TestWithParam<SwitchCase> {};

TEST_P(EnvSwitchSpelling, FusionAndShmParseCaseInsensitively) {
  LoadedConfig loaded =
      LoadConfig(EnvFrom({{"EMBER_FUSION", GetParam().text}, {"EMBER_SHM", GetParam().text}}),
                 "/nonexistent/ember.toml");
  EXPECT_THAT(loaded.warnings, IsEmpty());
  EXPECT_EQ(loaded.config.fusion_enabled, GetParam().value);
  EXPECT_EQ(loaded.config.shm, GetParam().value);
}

INSTANTIATE_TEST_SUITE_P(Spellings, EnvSwitchSpelling,
                         testing::Values(SwitchCase{"on", true}, SwitchCase{"ON", true},
                                         SwitchCase{"1", true}, SwitchCase{"true", true},
                                         SwitchCase{"True", true}, SwitchCase{"off", false},
                                         SwitchCase{"Off", false}, SwitchCase{"0", false},
                                         SwitchCase{"false", false}, SwitchCase{"FALSE", false}));

struct LevelCase {
  const char* text;
  LogLevel level;
};

class EmberLogSpelling : public testing::TestWithParam<LevelCase> {};

// The file says medium, so every spelling (disabled included) must visibly override it.
TEST_P(EmberLogSpelling, OverridesTheFileLevel) {
  TempDir dir;
  const std::string file = dir.Write("ember.toml", "[fusion.log]\nlevel = \"medium\"\n");
  LoadedConfig loaded =
      LoadConfig(EnvFrom({{"EMBER_CONFIG", file}, {"EMBER_LOG", GetParam().text}}));
  EXPECT_THAT(loaded.warnings, IsEmpty());
  EXPECT_EQ(loaded.config.log_level, GetParam().level);
}

INSTANTIATE_TEST_SUITE_P(
    Spellings, EmberLogSpelling,
    testing::Values(LevelCase{"disabled", LogLevel::kDisabled},
                    LevelCase{"DISABLED", LogLevel::kDisabled},
                    LevelCase{"off", LogLevel::kDisabled}, LevelCase{"OFF", LogLevel::kDisabled},
                    LevelCase{"0", LogLevel::kDisabled}, LevelCase{"basic", LogLevel::kBasic},
                    LevelCase{"Basic", LogLevel::kBasic}, LevelCase{"medium", LogLevel::kMedium},
                    LevelCase{"MEDIUM", LogLevel::kMedium}, LevelCase{"full", LogLevel::kFull},
                    LevelCase{"FuLl", LogLevel::kFull}, LevelCase{"1", LogLevel::kFull}));

TEST_F(ConfigTest, EmberLogGarbageKeepsTheConfiguredLevel) {
  LoadedConfig loaded = LoadToml("[fusion.log]\nlevel = \"medium\"\n", {{"EMBER_LOG", "verbose"}});
  EXPECT_EQ(loaded.config.log_level, LogLevel::kMedium);
  EXPECT_THAT(loaded.warnings,
              ElementsAre("ember: config: EMBER_LOG must be disabled, off, 0, basic, medium, "
                          "full or 1, got \"verbose\"; using medium"));
}

TEST_F(ConfigTest, EmberLogNumbersOtherThanZeroAndOneAreGarbage) {
  LoadedConfig loaded = LoadEnv({{"EMBER_LOG", "2"}});
  EXPECT_EQ(loaded.config.log_level, LogLevel::kDisabled);
  EXPECT_THAT(loaded.warnings,
              ElementsAre("ember: config: EMBER_LOG must be disabled, off, 0, basic, medium, "
                          "full or 1, got \"2\"; using disabled"));
}

}  // namespace
}  // namespace ember
