// Note [Config errors] for the environment: a bad EMBER_* value gives one warning and keeps the
// file's value (the layer below), and values in warnings are quoted and escaped.
#include "engine/core/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/core/config_fixture.h"
#include "tests/core/config_test_util.h"

namespace ember {
namespace {

using config_test::ConfigTest;
using testing::ElementsAre;

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

}  // namespace
}  // namespace ember
