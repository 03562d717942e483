// Printable: text from outside (databases, bundles, logs, segment names) never reaches a
// terminal with a control sequence in it, and nothing printable is changed.
#include "engine/core/printable.h"

#include <gtest/gtest.h>

#include <string>

namespace ember {
namespace {

TEST(Printable, EscapeSequencesAreShownNotSent) {
  // Set the window title (OSC 0), clear the screen (CSI 2J), recolour (SGR).
  EXPECT_EQ(Printable("job\x1b]0;pwned\x07"), "job\\x1b]0;pwned\\x07");
  EXPECT_EQ(Printable("\x1b[2J\x1b[31mred"), "\\x1b[2J\\x1b[31mred");
  EXPECT_EQ(Printable("a\nb\tc\rd\x7f"), "a\\nb\\tc\\rd\\x7f");
  EXPECT_EQ(Printable(std::string("nul\0here", 8)), "nul\\x00here");
}

TEST(Printable, C1ControlsAndBidiOverridesAreEscaped) {
  // U+009B is CSI on terminals that read C1 controls; U+202E reverses what a reader sees.
  EXPECT_EQ(Printable("\xc2\x9b"
                      "2J"),
            "\\u{009B}2J");
  EXPECT_EQ(Printable("abc\xe2\x80\xae"
                      "fed"),
            "abc\\u{202E}fed");
  EXPECT_EQ(Printable("\xe2\x81\xa6x"), "\\u{2066}x");
}

TEST(Printable, InvalidUtf8IsEscapedBytewise) {
  EXPECT_EQ(Printable("job\xff"), "job\\xff");
  EXPECT_EQ(Printable("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(Printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(Printable("\xe2\x82"), "\\xe2\\x82");                    // cut short
  EXPECT_EQ(Printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
}

TEST(Printable, PrintableTextIsKept) {
  EXPECT_EQ(Printable("softmax 64×32 — ok ✓ 日本"), "softmax 64×32 — ok ✓ 日本");
  EXPECT_EQ(Printable("/tmp/plans.db"), "/tmp/plans.db");
  // A backslash is doubled, so "\x1b" in the output always means an escape was made.
  EXPECT_EQ(Printable("a\\x1b"), "a\\\\x1b");
}

TEST(Printable, LinesKeepNewlinesTabsAndBackslashes) {
  EXPECT_EQ(PrintableLines("failed\n\tIs the server running?\x1b[2J"),
            "failed\n\tIs the server running?\\x1b[2J");
  // Idempotent over what Printable made.
  const std::string once = Printable("job\x1b]0;x\x07");
  EXPECT_EQ(PrintableLines(once), once);
}

TEST(Printable, BoundedSaysWhatWasCut) {
  const std::string long_text(200000, 'x');
  const std::string shown = PrintableBounded(long_text, 100);
  EXPECT_EQ(shown, std::string(100, 'x') + "… (199900 more bytes)");
  EXPECT_EQ(PrintableBounded("short", 100), "short");
  // The cut never splits a character: "é" is two bytes.
  EXPECT_EQ(PrintableBounded("aé", 2), "a… (2 more bytes)");
}

TEST(Printable, ValidUtf8) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain"));
  EXPECT_TRUE(IsValidUtf8("日本 ✓ \xf0\x9f\x94\xa5"));
  EXPECT_FALSE(IsValidUtf8("job\xff"));
  EXPECT_FALSE(IsValidUtf8("\xc0\x80"));
  EXPECT_FALSE(IsValidUtf8("\xed\xbf\xbf"));
}

}  // namespace
}  // namespace ember
