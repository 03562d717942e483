// LoadConfig's sources: the defaults, ember.toml (named by EMBER_CONFIG, or ./ember.toml) and
// what each key of the file sets. Note [Config errors] for the file: config_file_errors_test.cpp.
#include "engine/core/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "tests/core/config_fixture.h"
#include "tests/core/config_test_util.h"

namespace ember {
namespace {

using config_test::ConfigTest;
using config_test::EnvFrom;
using testing::ElementsAre;
using testing::IsEmpty;

TEST_F(ConfigTest, DefaultsWithoutFileOrEnvironment) {
  LoadedConfig loaded = LoadEnv({});
  EXPECT_TRUE(loaded.config.fusion_enabled);
  EXPECT_EQ(loaded.config.max_blocks, 5u);
  EXPECT_EQ(loaded.config.max_explorations, std::nullopt);
  EXPECT_EQ(loaded.config.log_level, LogLevel::kDisabled);
  EXPECT_EQ(loaded.config.log_file, "");
  EXPECT_EQ(loaded.config.plan_db, "");
  EXPECT_EQ(loaded.config.workload, "");
  EXPECT_TRUE(loaded.config.shm);
  EXPECT_EQ(loaded.config.shm_bytes, uint64_t{64} << 20);
  EXPECT_EQ(loaded.config.shm_wait_ms, 1000u);
  EXPECT_FALSE(loaded.config.allow_shared_writable);
  EXPECT_EQ(loaded.file, "");
  EXPECT_THAT(loaded.warnings, IsEmpty());
}

TEST_F(ConfigTest, FileSetsEveryKey) {
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
shm_bytes = 1048576
shm_wait_ms = 0
allow_shared_writable = true
)");
  EXPECT_TRUE(loaded.config.allow_shared_writable);
  EXPECT_THAT(loaded.warnings, IsEmpty());
  EXPECT_EQ(loaded.config.shm_bytes, 1048576u);
  EXPECT_EQ(loaded.config.shm_wait_ms, 0u);
  EXPECT_EQ(loaded.file, path_);
  EXPECT_FALSE(loaded.config.fusion_enabled);
  EXPECT_EQ(loaded.config.max_blocks, 12u);
  EXPECT_EQ(loaded.config.max_explorations, 40u);
  EXPECT_EQ(loaded.config.log_level, LogLevel::kMedium);
  EXPECT_EQ(loaded.config.log_file, "fusion.log");
  EXPECT_EQ(loaded.config.plan_db, "plans.db");
  EXPECT_EQ(loaded.config.workload, "train");
  EXPECT_FALSE(loaded.config.shm);
}

TEST_F(ConfigTest, KeysLeftOutOfTheFileKeepTheirDefaults) {
  LoadedConfig loaded = LoadToml("[fusion.search]\nmax_explorations = 0\n");
  EXPECT_THAT(loaded.warnings, IsEmpty());
  EXPECT_EQ(loaded.config.max_explorations, 0u);  // A cap of 0: never explore.
  EXPECT_EQ(loaded.config.max_blocks, 5u);
  EXPECT_TRUE(loaded.config.fusion_enabled);
  EXPECT_EQ(loaded.config.log_level, LogLevel::kDisabled);
}

TEST_F(ConfigTest, DottedKeysAreTheSameAsTables) {
  LoadedConfig loaded = LoadToml("fusion.search.max_blocks = 9\nfusion.log.level = \"full\"\n");
  EXPECT_THAT(loaded.warnings, IsEmpty());
  EXPECT_EQ(loaded.config.max_blocks, 9u);
  EXPECT_EQ(loaded.config.log_level, LogLevel::kFull);
}

TEST_F(ConfigTest, MaxExplorationsUnlimitedSpellingInFile) {
  LoadedConfig loaded = LoadToml("[fusion.search]\nmax_explorations = \"Unlimited\"\n");
  EXPECT_THAT(loaded.warnings, IsEmpty());
  EXPECT_EQ(loaded.config.max_explorations, std::nullopt);
}

TEST_F(ConfigTest, DefaultFileIsReadWhenEmberConfigIsUnset) {
  const std::string file = dir_.Write("default.toml", "[fusion.search]\nmax_blocks = 7\n");
  LoadedConfig loaded = LoadConfig(EnvFrom({}), file);
  EXPECT_THAT(loaded.warnings, IsEmpty());
  EXPECT_EQ(loaded.file, file);
  EXPECT_EQ(loaded.config.max_blocks, 7u);
}

TEST_F(ConfigTest, EmberConfigWinsOverTheDefaultFile) {
  const std::string fallback = dir_.Write("default.toml", "[fusion.search]\nmax_blocks = 7\n");
  const std::string named = dir_.Write("named.toml", "[fusion.search]\nmax_blocks = 8\n");
  LoadedConfig loaded = LoadConfig(EnvFrom({{"EMBER_CONFIG", named}}), fallback);
  EXPECT_THAT(loaded.warnings, IsEmpty());
  EXPECT_EQ(loaded.file, named);
  EXPECT_EQ(loaded.config.max_blocks, 8u);
}

TEST_F(ConfigTest, EmberConfigDevNullSkipsTheDefaultFile) {
  const std::string fallback = dir_.Write("default.toml", "[fusion.search]\nmax_blocks = 7\n");
  LoadedConfig loaded = LoadConfig(EnvFrom({{"EMBER_CONFIG", "/dev/null"}}), fallback);
  EXPECT_THAT(loaded.warnings, IsEmpty());
  EXPECT_EQ(loaded.config.max_blocks, 5u);
}

TEST_F(ConfigTest, WorkingDirectoryEmberTomlIsTheDefault) {
  dir_.Write("ember.toml", "[fusion.search]\nmax_blocks = 3\nmax_explorations = 2\n");
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(dir_.path());
  LoadedConfig loaded = LoadConfig(EnvFrom({}));
  std::filesystem::current_path(before);
  EXPECT_THAT(loaded.warnings, IsEmpty());
  EXPECT_EQ(loaded.file, "ember.toml");
  EXPECT_EQ(loaded.config.max_blocks, 3u);
  EXPECT_EQ(loaded.config.max_explorations, 2u);
}

TEST_F(ConfigTest, SharedMemorySizesOutOfRangeAreReportedAndIgnored) {
  LoadedConfig file = LoadToml("[store]\nshm_bytes = 1000\nshm_wait_ms = -1\n");
  EXPECT_EQ(file.config.shm_bytes, uint64_t{64} << 20);
  EXPECT_EQ(file.config.shm_wait_ms, 1000u);
  ASSERT_EQ(file.warnings.size(), 2u);
  EXPECT_THAT(file.warnings[0],
              testing::HasSubstr("[store] shm_bytes must be an integer from 262144 to "
                                 "4294967296, got 1000; using 67108864"));
  EXPECT_THAT(file.warnings[1],
              testing::HasSubstr("[store] shm_wait_ms must be an integer from 0 to 60000"));
  LoadedConfig env = LoadEnv({{"EMBER_SHM_BYTES", "lots"}, {"EMBER_SHM_WAIT_MS", "600000"}});
  EXPECT_EQ(env.config.shm_bytes, uint64_t{64} << 20);
  EXPECT_EQ(env.config.shm_wait_ms, 1000u);
  ASSERT_EQ(env.warnings.size(), 2u);
  EXPECT_THAT(env.warnings[0],
              testing::HasSubstr("EMBER_SHM_BYTES must be an integer from 262144 to "
                                 "4294967296, got \"lots\"; using 67108864"));
  EXPECT_THAT(env.warnings[1],
              testing::HasSubstr("EMBER_SHM_WAIT_MS must be an integer from 0 to 60000"));
}

// EMBER_SHM_BYTES=99999999999999 once left a 91 TB object in /dev/shm that no later run could
// map: sizes above kMaxShmBytes are refused like sizes below the minimum, and the bound itself
// is accepted.
TEST_F(ConfigTest, SharedMemorySizesAboveTheMaximumAreReportedAndIgnored) {
  LoadedConfig file = LoadToml("[store]\nshm_bytes = 99999999999999\n");
  EXPECT_EQ(file.config.shm_bytes, uint64_t{64} << 20);
  EXPECT_THAT(file.warnings,
              ElementsAre(FileWarning(2,
                                      "[store] shm_bytes must be an integer from 262144 to "
                                      "4294967296, got 99999999999999; using 67108864")));
  EXPECT_THAT(LoadToml("[store]\nshm_bytes = 4294967296\n").warnings, IsEmpty());
  EXPECT_EQ(LoadToml("[store]\nshm_bytes = 4294967296\n").config.shm_bytes, kMaxShmBytes);
  EXPECT_EQ(LoadToml("[store]\nshm_bytes = 4294967297\n").warnings.size(), 1u);

  // The environment's bad value keeps the file's.
  LoadedConfig env =
      LoadToml("[store]\nshm_bytes = 1048576\n", {{"EMBER_SHM_BYTES", "99999999999999"}});
  EXPECT_EQ(env.config.shm_bytes, 1048576u);
  EXPECT_THAT(env.warnings,
              ElementsAre("ember: config: EMBER_SHM_BYTES must be an integer from 262144 to "
                          "4294967296, got \"99999999999999\"; using 1048576"));
  EXPECT_EQ(LoadEnv({{"EMBER_SHM_BYTES", "4294967296"}}).config.shm_bytes, kMaxShmBytes);
  EXPECT_EQ(LoadEnv({{"EMBER_SHM_BYTES", "4294967297"}}).config.shm_bytes, uint64_t{64} << 20);
}

}  // namespace
}  // namespace ember
