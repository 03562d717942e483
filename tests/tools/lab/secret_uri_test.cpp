// ember-lab and the engine's own lines never print a password written into a PostgreSQL URI
// (issue 40, item 3): --db, the human report, --json, and the engine's messages at
// EMBER_LOG=medium. No server listens on 127.0.0.1:9, so the run keeps its plans in memory and
// says so, naming the server without its password.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/common/hostile_uris.h"
#include "tests/tools/lab/lab_runner.h"

namespace ember::test {
namespace {

using testing::HasSubstr;
using testing::Not;

TEST(LabSecretUri, NoOutputShowsThePassword) {
  for (const std::string& uri : kHostileUris) {
    for (const bool json : {false, true}) {
      TempDir dir;
      std::vector<std::string> args = {"reuse", "--db",  uri,      "--steps",
                                       "1",     "--log", "medium", "--no-progress"};
      if (json) args.push_back("--json");
      const LabRun run = RunLab(dir, args);
      EXPECT_THAT(run.out + run.err, Not(HasSubstr(kSecretPart))) << uri << (json ? " --json" : "");
      EXPECT_THAT(run.out + run.err, HasSubstr("postgresql://e")) << uri;
    }
  }
}

}  // namespace
}  // namespace ember::test
