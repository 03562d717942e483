// EnvironmentDifference: a stored environment description is text any host of a shared
// database wrote; what a miss line quotes of it is bounded and escaped.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "store/codec/environment_fingerprint.h"

namespace ember {
namespace {

using testing::HasSubstr;
using testing::Not;

TEST(EnvironmentDifference, NamesEachDifferingField) {
  EXPECT_EQ(EnvironmentDifference(R"({"max_blocks":3,"backend":"cpu"})",
                                  R"({"max_blocks":5,"backend":"cpu"})"),
            "max_blocks: 3 here, 5 in the stored plan's");
  EXPECT_EQ(EnvironmentDifference(R"({"a":1})", R"({"a":1})"), "");
}

TEST(EnvironmentDifference, AHugeStoredDescriptionGivesABoundedLine) {
  const std::string huge(200000, 'x');
  const std::string as_json = R"({"backend":")" + huge + R"("})";
  const std::string difference = EnvironmentDifference(R"({"backend":"cpu"})", as_json);
  EXPECT_LT(difference.size(), 1000u);
  EXPECT_THAT(difference, HasSubstr("more bytes"));
  const std::string not_json = EnvironmentDifference(R"({"backend":"cpu"})", huge);
  EXPECT_LT(not_json.size(), 1000u);
}

TEST(EnvironmentDifference, ManyDifferingFieldsAreCounted) {
  std::string stored = "{";
  for (int i = 0; i < 1000; ++i) stored += (i ? "," : "") + ("\"k" + std::to_string(i) + "\":1");
  stored += "}";
  const std::string difference = EnvironmentDifference("{}", stored);
  EXPECT_LT(difference.size(), 1000u);
  EXPECT_THAT(difference, HasSubstr("and 994 more fields"));
}

TEST(EnvironmentDifference, ControlCharactersAreEscaped) {
  // Valid JSON whose string holds an ESC (as \u001b) and OSC title sequence.
  const std::string difference =
      EnvironmentDifference(R"({"backend":"cpu"})", "{\"backend\":\"\\u001b]0;pwned\\u0007\"}");
  EXPECT_THAT(difference, Not(HasSubstr("\x1b")));
  // Not JSON at all, with raw control bytes and invalid UTF-8.
  const std::string raw = EnvironmentDifference(R"({"backend":"cpu"})", "\x1b[2J\xff");
  EXPECT_THAT(raw, Not(HasSubstr("\x1b")));
  EXPECT_THAT(raw, HasSubstr("\\x1b[2J\\xff"));
}

}  // namespace
}  // namespace ember
