// Note [Config errors] for ember.toml: each bad value, unknown key or unreadable file gives one
// warning naming the file, line, key and value, and leaves the layer below in force.
#include "engine/core/config.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/core/config_fixture.h"
#include "tests/core/config_test_util.h"

namespace ember {
namespace {

using config_test::ConfigTest;
using config_test::EnvFrom;
using testing::ElementsAre;
using testing::EndsWith;
using testing::IsEmpty;
using testing::StartsWith;

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

}  // namespace
}  // namespace ember
