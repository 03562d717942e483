// LoadConfig: the layers defaults → ember.toml → environment, and Note [Config errors] (each
// bad value gives one warning and leaves the layer below in force). The environment is a map
// and the files are temporary, so nothing here depends on the machine's EMBER_* variables.
#include "engine/core/config.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "tests/core/config_test_util.h"

namespace ember {
namespace {

using config_test::EnvFrom;
using config_test::EnvMap;
using config_test::TempDir;
using testing::ElementsAre;
using testing::EndsWith;
using testing::IsEmpty;
using testing::StartsWith;

class ConfigTest : public testing::Test {
 protected:
  // Loads `toml` as the file named by EMBER_CONFIG, plus `env`.
  LoadedConfig LoadToml(std::string_view toml, EnvMap env = {}) {
    path_ = dir_.Write("ember.toml", toml);
    env["EMBER_CONFIG"] = path_;
    return LoadConfig(EnvFrom(std::move(env)), NoDefaultFile());
  }

  LoadedConfig LoadEnv(EnvMap env) { return LoadConfig(EnvFrom(std::move(env)), NoDefaultFile()); }

  // A default file that does not exist, so ./ember.toml of the test's directory never leaks in.
  std::filesystem::path NoDefaultFile() const { return dir_.path() / "absent.toml"; }

  // The warning LoadToml's file gives for `what` at `line`.
  std::string FileWarning(int line, std::string_view what) const {
    return fmt::format("ember: config: {}:{}: {}", path_, line, what);
  }

  TempDir dir_;
  std::string path_;
};

// --- Sources -----------------------------------------------------------------------------------

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

// --- Environment overrides and precedence -------------------------------------------------------

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

// --- Malformed files ---------------------------------------------------------------------------

TEST_F(ConfigTest, WarningNamesFileLineKeyValueAndFallback) {
  // The exact form of Note [Config errors], with the file found in the working directory.
  dir_.Write("ember.toml", "# ember\n[fusion.search]\nmax_blocks = \"abc\"\n");
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(dir_.path());
  LoadedConfig loaded = LoadConfig(EnvFrom({}));
  std::filesystem::current_path(before);
  EXPECT_EQ(loaded.config.max_blocks, 5u);
  EXPECT_THAT(loaded.warnings, ElementsAre("ember: config: ember.toml:3: [fusion.search] "
                                           "max_blocks must be a positive integer, got \"abc\"; "
                                           "using 5"));
}

struct BadValueCase {
  const char* toml;
  const char* warning;  // After "ember: config: <file>:<line>: ".
  int line;
};

class ConfigBadValue : public ConfigTest, public testing::WithParamInterface<BadValueCase> {};

// Every key, given a value of the wrong type or range, keeps its default and says so once.
TEST_P(ConfigBadValue, KeepsTheDefaultWithOneWarning) {
  LoadedConfig loaded = LoadToml(GetParam().toml);
  EXPECT_THAT(loaded.warnings, ElementsAre(FileWarning(GetParam().line, GetParam().warning)));
  Config defaults;
  EXPECT_EQ(loaded.config.fusion_enabled, defaults.fusion_enabled);
  EXPECT_EQ(loaded.config.max_blocks, defaults.max_blocks);
  EXPECT_EQ(loaded.config.max_explorations, defaults.max_explorations);
  EXPECT_EQ(loaded.config.log_level, defaults.log_level);
  EXPECT_EQ(loaded.config.log_file, defaults.log_file);
  EXPECT_EQ(loaded.config.plan_db, defaults.plan_db);
  EXPECT_EQ(loaded.config.workload, defaults.workload);
  EXPECT_EQ(loaded.config.shm, defaults.shm);
}

INSTANTIATE_TEST_SUITE_P(
    Values, ConfigBadValue,
    testing::Values(
        BadValueCase{"[fusion.search]\nmax_blocks = \"abc\"\n",
                     "[fusion.search] max_blocks must be a positive integer, got \"abc\"; using 5",
                     2},
        BadValueCase{"[fusion.search]\nmax_blocks = 0\n",
                     "[fusion.search] max_blocks must be a positive integer, got 0; using 5", 2},
        BadValueCase{"[fusion.search]\nmax_blocks = -3\n",
                     "[fusion.search] max_blocks must be a positive integer, got -3; using 5", 2},
        BadValueCase{"[fusion.search]\nmax_blocks = 2.5\n",
                     "[fusion.search] max_blocks must be a positive integer, got 2.5; using 5", 2},
        BadValueCase{"[fusion.search]\nmax_blocks = [1, 2]\n",
                     "[fusion.search] max_blocks must be a positive integer, got an array; "
                     "using 5",
                     2},
        BadValueCase{"[fusion.search]\n\nmax_explorations = -1\n",
                     "[fusion.search] max_explorations must be a non-negative integer or "
                     "\"unlimited\", got -1; using unlimited",
                     3},
        BadValueCase{"[fusion.search]\nmax_explorations = \"lots\"\n",
                     "[fusion.search] max_explorations must be a non-negative integer or "
                     "\"unlimited\", got \"lots\"; using unlimited",
                     2},
        BadValueCase{"[fusion.log]\nlevel = \"verbose\"\n",
                     "[fusion.log] level must be \"disabled\", \"basic\", \"medium\" or \"full\", "
                     "got \"verbose\"; using disabled",
                     2},
        BadValueCase{"[fusion.log]\nlevel = 3\n",
                     "[fusion.log] level must be \"disabled\", \"basic\", \"medium\" or \"full\", "
                     "got 3; using disabled",
                     2},
        BadValueCase{"[fusion.log]\nfile = 3\n",
                     "[fusion.log] file must be a string, got 3; using stderr", 2},
        BadValueCase{"[fusion]\nenabled = \"yes\"\n",
                     "[fusion] enabled must be true or false, got \"yes\"; using true", 2},
        BadValueCase{"[fusion]\nenabled = 0\n",
                     "[fusion] enabled must be true or false, got 0; using true", 2},
        BadValueCase{"[store]\nplan_db = false\n",
                     "[store] plan_db must be a path or \"off\", got false; using "
                     "\".ember/plans.db\" (the default)",
                     2},
        // An empty path would silently mean the default one.
        BadValueCase{"[store]\npath = \"\"\n",
                     "[store] path must be a path or \"off\", got \"\"; using "
                     "\".ember/plans.db\" (the default)",
                     2},
        BadValueCase{"[store]\nworkload = 12\n",
                     "[store] workload must be UTF-8 text of at most 256 bytes without control "
                     "characters, got 12; using the executable's name",
                     2},
        BadValueCase{"[store]\nshm = \"on\"\n",
                     "[store] shm must be true or false, got \"on\"; using true", 2},
        BadValueCase{"fusion = 3\n", "fusion must be a table, got 3; ignored", 1},
        BadValueCase{"[fusion]\nsearch = 1\n", "[fusion] search must be a table, got 1; ignored",
                     2},
        BadValueCase{"[fusion]\nlog = \"full\"\n",
                     "[fusion] log must be a table, got \"full\"; ignored", 2},
        BadValueCase{"store = [1]\n", "store must be a table, got an array; ignored", 1}));

// A bad `path` keeps what the layer below (here the older spelling in the same table) said.
TEST_F(ConfigTest, AnEmptyPathKeepsTheDatabaseNamedBefore) {
  LoadedConfig loaded = LoadToml("[store]\nplan_db = \"mine.db\"\npath = \"\"\n");
  EXPECT_EQ(loaded.config.plan_db, "mine.db");
  EXPECT_THAT(loaded.warnings,
              ElementsAre(FileWarning(
                  3, "[store] path must be a path or \"off\", got \"\"; using \"mine.db\"")));
  EXPECT_EQ(PlanDbPath(LoadToml("[store]\npath = \"off\"\n").config), "off");
}

TEST_F(ConfigTest, UnknownKeysAreReportedAndTheRestIsRead) {
  LoadedConfig loaded = LoadToml(R"([fusion.search]
max_block = 3
max_blocks = 4
[fusoin]
enabled = false
[fusion.log]
levle = "full"
colour = { on = true }
)"
                                 "verbose = true\n");
  EXPECT_EQ(loaded.config.max_blocks, 4u);
  EXPECT_TRUE(loaded.config.fusion_enabled);
  EXPECT_EQ(loaded.config.log_level, LogLevel::kDisabled);
  // Reported table by table (top level first), each table's keys in sorted order.
  EXPECT_THAT(loaded.warnings,
              ElementsAre(FileWarning(4, "unknown table [fusoin]; ignored"),
                          FileWarning(2, "unknown key [fusion.search] max_block; ignored"),
                          FileWarning(8, "unknown table [fusion.log.colour]; ignored"),
                          FileWarning(7, "unknown key [fusion.log] levle; ignored"),
                          FileWarning(9, "unknown key [fusion.log] verbose; ignored")));
}

TEST_F(ConfigTest, UnknownTopLevelKey) {
  LoadedConfig loaded = LoadToml("max_blocks = 3\n");
  EXPECT_EQ(loaded.config.max_blocks, 5u);
  EXPECT_THAT(loaded.warnings, ElementsAre(FileWarning(1, "unknown key max_blocks; ignored")));
}

TEST_F(ConfigTest, SyntaxErrorIgnoresTheWholeFileButNotTheEnvironment) {
  LoadedConfig loaded = LoadToml("[fusion.search]\nmax_blocks = 9\n[fusion\nenabled = false\n",
                                 {{"EMBER_LOG", "basic"}});
  ASSERT_EQ(loaded.warnings.size(), 1u);
  EXPECT_THAT(loaded.warnings[0], StartsWith(fmt::format("ember: config: {}:3:", path_)));
  EXPECT_THAT(loaded.warnings[0], testing::HasSubstr(": malformed TOML: "));
  EXPECT_THAT(loaded.warnings[0], EndsWith("; the file is ignored"));
  EXPECT_EQ(loaded.file, "");
  EXPECT_EQ(loaded.config.max_blocks, 5u);  // Line 2 was fine, but the file is all or nothing.
  EXPECT_TRUE(loaded.config.fusion_enabled);
  EXPECT_EQ(loaded.config.log_level, LogLevel::kBasic);
}

TEST_F(ConfigTest, DuplicateKeyIsASyntaxError) {
  LoadedConfig loaded = LoadToml("[fusion.search]\nmax_blocks = 9\nmax_blocks = 8\n");
  ASSERT_EQ(loaded.warnings.size(), 1u);
  EXPECT_THAT(loaded.warnings[0], StartsWith(fmt::format("ember: config: {}:3:", path_)));
  EXPECT_EQ(loaded.config.max_blocks, 5u);
}

TEST_F(ConfigTest, MissingEmberConfigFileIsReported) {
  const std::string missing = (dir_.path() / "missing.toml").string();
  LoadedConfig loaded = LoadEnv({{"EMBER_CONFIG", missing}, {"EMBER_MAX_BLOCKS", "6"}});
  EXPECT_THAT(loaded.warnings,
              ElementsAre(fmt::format("ember: config: {}: cannot read the file named by "
                                      "EMBER_CONFIG (No such file or directory); it is ignored",
                                      missing)));
  EXPECT_EQ(loaded.file, "");
  EXPECT_EQ(loaded.config.max_blocks, 6u);
}

TEST_F(ConfigTest, EmberConfigNamingADirectoryIsReported) {
  const std::string directory = dir_.path().string();
  LoadedConfig loaded = LoadEnv({{"EMBER_CONFIG", directory}});
  EXPECT_THAT(loaded.warnings,
              ElementsAre(fmt::format("ember: config: {}: cannot read the file named by "
                                      "EMBER_CONFIG (it is a directory); it is ignored",
                                      directory)));
}

TEST_F(ConfigTest, EachProblemIsReportedOnceInOrder) {
  LoadedConfig loaded = LoadToml(R"([fusion]
enabled = "no"
[fusion.search]
max_blocks = 0
[fusion.log]
level = "loud"
)",
                                 {{"EMBER_MAX_EXPLORATIONS", "-2"}, {"EMBER_SHM", "maybe"}});
  EXPECT_THAT(
      loaded.warnings,
      ElementsAre(
          FileWarning(2, "[fusion] enabled must be true or false, got \"no\"; using true"),
          FileWarning(4, "[fusion.search] max_blocks must be a positive integer, got 0; using 5"),
          FileWarning(6,
                      "[fusion.log] level must be \"disabled\", \"basic\", \"medium\" or "
                      "\"full\", got \"loud\"; using disabled"),
          "ember: config: EMBER_MAX_EXPLORATIONS must be a non-negative integer or "
          "\"unlimited\", got \"-2\"; using unlimited",
          "ember: config: EMBER_SHM must be on, off, 1, 0, true or false, got \"maybe\"; "
          "using on"));
}

// --- Malformed environment values ----------------------------------------------------------------

struct BadEnvCase {
  const char* name;
  const char* value;
  const char* warning;  // After "ember: config: ".
};

class ConfigBadEnv : public ConfigTest, public testing::WithParamInterface<BadEnvCase> {};

// A bad variable keeps the file's value (the layer below), not the default.
TEST_P(ConfigBadEnv, KeepsTheFileValueWithOneWarning) {
  LoadedConfig loaded = LoadToml(R"([fusion]
enabled = false
[fusion.search]
max_blocks = 8
max_explorations = 30
[store]
shm = false
)",
                                 {{GetParam().name, GetParam().value}});
  EXPECT_THAT(loaded.warnings, ElementsAre(std::string("ember: config: ") + GetParam().warning));
  EXPECT_FALSE(loaded.config.fusion_enabled);
  EXPECT_EQ(loaded.config.max_blocks, 8u);
  EXPECT_EQ(loaded.config.max_explorations, 30u);
  EXPECT_FALSE(loaded.config.shm);
}

INSTANTIATE_TEST_SUITE_P(
    Values, ConfigBadEnv,
    testing::Values(
        BadEnvCase{"EMBER_MAX_BLOCKS", "abc",
                   "EMBER_MAX_BLOCKS must be a positive integer, got \"abc\"; using 8"},
        BadEnvCase{"EMBER_MAX_BLOCKS", "0",
                   "EMBER_MAX_BLOCKS must be a positive integer, got \"0\"; using 8"},
        BadEnvCase{"EMBER_MAX_BLOCKS", "-3",
                   "EMBER_MAX_BLOCKS must be a positive integer, got \"-3\"; using 8"},
        BadEnvCase{"EMBER_MAX_BLOCKS", "+3",
                   "EMBER_MAX_BLOCKS must be a positive integer, got \"+3\"; using 8"},
        BadEnvCase{"EMBER_MAX_BLOCKS", " 5",
                   "EMBER_MAX_BLOCKS must be a positive integer, got \" 5\"; using 8"},
        BadEnvCase{"EMBER_MAX_BLOCKS", "5x",
                   "EMBER_MAX_BLOCKS must be a positive integer, got \"5x\"; using 8"},
        BadEnvCase{"EMBER_MAX_BLOCKS", "99999999999999999999999",
                   "EMBER_MAX_BLOCKS must be a positive integer, got "
                   "\"99999999999999999999999\"; using 8"},
        BadEnvCase{"EMBER_MAX_EXPLORATIONS", "-1",
                   "EMBER_MAX_EXPLORATIONS must be a non-negative integer or \"unlimited\", "
                   "got \"-1\"; using 30"},
        BadEnvCase{"EMBER_MAX_EXPLORATIONS", "none",
                   "EMBER_MAX_EXPLORATIONS must be a non-negative integer or \"unlimited\", "
                   "got \"none\"; using 30"},
        BadEnvCase{"EMBER_FUSION", "maybe",
                   "EMBER_FUSION must be on, off, 1, 0, true or false, got \"maybe\"; "
                   "using off"},
        BadEnvCase{"EMBER_SHM", "yes",
                   "EMBER_SHM must be on, off, 1, 0, true or false, got \"yes\"; using off"},
        // A workload name is stored and shown by every tool: SQLite would keep any bytes and
        // PostgreSQL refuse them, so it is refused here, for both (issue 40).
        BadEnvCase{"EMBER_WORKLOAD", "job\xff",
                   "EMBER_WORKLOAD must be UTF-8 text of at most 256 bytes without control "
                   "characters, got \"job\\xff\"; using the executable's name"},
        BadEnvCase{"EMBER_WORKLOAD", "job\x1b]0;x\x07",
                   "EMBER_WORKLOAD must be UTF-8 text of at most 256 bytes without control "
                   "characters, got \"job\\x1b]0;x\\x07\"; using the executable's name"}));

TEST_F(ConfigTest, ValuesInWarningsAreQuotedAndEscaped) {
  LoadedConfig loaded =
      LoadToml("[fusion.log]\nlevel = 'say \"hi\"\\'\n", {{"EMBER_MAX_BLOCKS", "a\tb"}});
  EXPECT_THAT(loaded.warnings,
              ElementsAre(FileWarning(2,
                                      "[fusion.log] level must be \"disabled\", \"basic\", "
                                      "\"medium\" or \"full\", got \"say \\\"hi\\\"\\\\\"; "
                                      "using disabled"),
                          "ember: config: EMBER_MAX_BLOCKS must be a positive integer, got "
                          "\"a\\tb\"; using 5"));
}

TEST_F(ConfigTest, BadFileValueCanBeFixedFromTheEnvironment) {
  LoadedConfig loaded =
      LoadToml("[fusion.search]\nmax_blocks = \"abc\"\n", {{"EMBER_MAX_BLOCKS", "7"}});
  EXPECT_EQ(loaded.config.max_blocks, 7u);
  EXPECT_EQ(loaded.warnings.size(), 1u);
}

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
                  "[fusion.log] level EMBER_LOG", "[fusion.log] file ", "[store] plan_db ",
                  "[store] path EMBER_PLAN_DB", "[store] workload EMBER_WORKLOAD",
                  "[store] allow_shared_writable EMBER_ALLOW_SHARED_WRITABLE",
                  "[store] shm EMBER_SHM", "[store] shm_bytes EMBER_SHM_BYTES",
                  "[store] shm_wait_ms EMBER_SHM_WAIT_MS",
                  "[runtime] launch_records EMBER_LAUNCH_RECORDS"));
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
  EXPECT_EQ(checked, 5);
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

// --- The process-wide configuration
// ---------------------------------------------------------------

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
