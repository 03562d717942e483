// A password written into a PostgreSQL URI is never printed by ember-plans, in any spelling
// libpq accepts and whatever libpq's message quotes (issue 40, item 3; Note [Reading a URI as
// libpq does], engine/core/plan_db_location.h). No server listens on 127.0.0.1:9: every form
// fails, as parsing or as connecting, and every printer reports the failure.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/common/hostile_uris.h"
#include "tests/tools/plans/plans_test_util.h"

namespace ember::plans_test {
namespace {

using testing::HasSubstr;
using testing::Not;

const std::vector<std::vector<std::string>> kCommands = {
    {"stats"},
    {"ls"},
    {"workloads"},
    {"explain"},
    {"verify"},
    {"quarantine", "ls"},
    {"gc", "--dry-run"},
    {"migrate"},
    {"stats", "--json"},
    {"ls", "--json"},
    {"explain", "--json"},
    {"verify", "--json"},
};

TEST(PlansSecretUri, NoCommandPrintsThePassword) {
  for (const std::string& uri : test::kHostileUris) {
    for (const std::vector<std::string>& command : kCommands) {
      const PlansRun run = PlansOn(uri, command);
      EXPECT_NE(run.code, 0) << uri << " " << command[0];
      EXPECT_THAT(run.out + run.err, Not(HasSubstr(test::kSecretPart))) << uri << " " << command[0];
      // The failure still names the server, its password masked.
      EXPECT_THAT(run.out + run.err, HasSubstr("postgresql://e")) << uri << " " << command[0];
    }
    // The same URI from the configuration instead of --db.
    const PlansRun from_env = Plans({"stats"}, {"EMBER_PLAN_DB=" + uri});
    EXPECT_THAT(from_env.out + from_env.err, Not(HasSubstr(test::kSecretPart))) << uri;
    // As the target of a copy.
    TempDir dir;
    const PlansRun copy = Plans({"copy", dir.File("none.db"), uri});
    EXPECT_THAT(copy.out + copy.err, Not(HasSubstr(test::kSecretPart))) << uri;
  }
}

}  // namespace
}  // namespace ember::plans_test
