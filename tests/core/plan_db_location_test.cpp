// RedactedUri and RedactedText: a password in a PostgreSQL URI is never shown, in any spelling
// libpq accepts (Note [Reading a URI as libpq does], engine/core/plan_db_location.h).
#include "engine/core/plan_db_location.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/common/hostile_uris.h"

namespace ember {
namespace {

using testing::HasSubstr;
using testing::Not;

// The forms the hostile probe printed, and two more a password may hold.
std::vector<std::string> HostileUris() {
  std::vector<std::string> uris = test::kHostileUris;
  uris.push_back("postgresql://e@127.0.0.1:9/x?PASSWORD=Sup3rSecret");
  uris.push_back("postgresql://e:Sup3r/Secret@127.0.0.1:9/x");
  uris.push_back("postgresql://e:Sup3r#Secret@127.0.0.1:9/x");
  return uris;
}

TEST(PlanDbLocation, HostileUrisNeverShowTheirSecret) {
  for (const std::string& uri : HostileUris()) {
    const std::string shown = RedactedUri(uri);
    EXPECT_THAT(shown, Not(HasSubstr("Secret"))) << uri;
    EXPECT_THAT(shown, HasSubstr("***")) << uri;
    EXPECT_THAT(ShownLocation(uri), Not(HasSubstr("Secret"))) << uri;
  }
}

TEST(PlanDbLocation, UserInfoEndsAsLibpqEndsIt) {
  EXPECT_EQ(RedactedUri("postgresql://e:pa?Sup3rSecret@127.0.0.1:9/x"),
            "postgresql://e:***@127.0.0.1:9/x");
  EXPECT_EQ(RedactedUri("postgresql://e:Sup3rSecret@[::1]x:9/x"), "postgresql://e:***@[::1]x:9/x");
  EXPECT_EQ(RedactedUri("postgresql://e@h/x?pass%77ord=s&sslmode=require"),
            "postgresql://e@h/x?pass%77ord=***&sslmode=require");
  EXPECT_EQ(RedactedUri("postgresql://h/x?application_name=a@b&sslpassword=s"),
            "postgresql://h/x?application_name=a@b&sslpassword=***");
  EXPECT_EQ(RedactedUri("postgresql://ember@db:5432/plans"), "postgresql://ember@db:5432/plans");
}

TEST(PlanDbLocation, SecretsInEverySpelling) {
  EXPECT_THAT(UriSecrets("postgresql://e:Sup3r%21Secret@h/x?password=a%20b"),
              testing::ElementsAre("Sup3r%21Secret", "Sup3r!Secret", "a%20b", "a b"));
  EXPECT_TRUE(UriSecrets("postgresql://e@h/x").empty());
  EXPECT_TRUE(UriSecrets("/tmp/plans.db").empty());
}

TEST(PlanDbLocation, MessagesThatQuoteTheUriOrATokenAreRedacted) {
  // What libpq 15 says for two of the forms above (fe-connect.c).
  const std::string whole = "postgresql://e:Sup3rSecret@[::1]x:9/x";
  const std::string libpq_whole =
      "unexpected character \"x\" at position 33 in URI (expected \":\" or \"/\"): \"" + whole +
      "\"";
  EXPECT_THAT(RedactedText(libpq_whole, whole, UriSecrets(whole)), Not(HasSubstr("Secret")));
  const std::string token = "postgresql://e:Sup3r%zzSecret@127.0.0.1:9/x";
  EXPECT_EQ(
      RedactedText("invalid percent-encoded token: \"Sup3r%zzSecret\"", token, UriSecrets(token)),
      "invalid percent-encoded token: \"***\"");
}

TEST(PlanDbLocation, PathsAreShownPrintable) {
  EXPECT_EQ(ShownLocation("/tmp/plans.db"), "/tmp/plans.db");
  EXPECT_EQ(ShownLocation("/tmp/\x1b]0;x\x07.db"), "/tmp/\\x1b]0;x\\x07.db");
}

}  // namespace
}  // namespace ember
