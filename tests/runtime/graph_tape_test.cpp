// GraphTape (engine/runtime/graph_tape.h): the hash grows launch by launch, the recipe text
// round-trips, and anything that is not a tape this build wrote is refused.
#include "engine/runtime/graph_tape.h"

#include <gtest/gtest.h>

#include <string>

namespace ember {
namespace {

GraphTape ThreeLaunches() {
  GraphTape tape;
  tape.launches.push_back({.kernel = 0x0123456789abcdefULL,
                           .grid = 132,
                           .threads = 256,
                           .shared_bytes = 0,
                           .arg_words = 12});
  tape.launches.push_back({.kernel = 0xfedcba9876543210ULL,
                           .grid = 264,
                           .threads = 128,
                           .shared_bytes = 4096,
                           .arg_words = 30});
  tape.launches.push_back({.kernel = 0x0123456789abcdefULL,
                           .grid = 1,
                           .threads = 1024,
                           .shared_bytes = 0,
                           .arg_words = 12});
  return tape;
}

TEST(GraphTape, HashFoldsLaunchByLaunch) {
  const GraphTape tape = ThreeLaunches();
  uint64_t hash = kTapeSeed;
  for (const TapeLaunch& launch : tape.launches) hash = TapeStep(hash, launch);
  EXPECT_EQ(hash, TapeHash(tape));
  GraphTape shorter = tape;
  shorter.launches.pop_back();
  EXPECT_NE(TapeHash(shorter), TapeHash(tape));
}

TEST(GraphTape, EveryFieldChangesTheHash) {
  const GraphTape tape = ThreeLaunches();
  const uint64_t base = TapeHash(tape);
  for (int field = 0; field < 5; ++field) {
    GraphTape changed = tape;
    TapeLaunch& l = changed.launches[1];
    switch (field) {
      case 0: l.kernel ^= 1; break;
      case 1: l.grid += 1; break;
      case 2: l.threads = 64; break;
      case 3: l.shared_bytes += 16; break;
      case 4: l.arg_words += 1; break;
    }
    EXPECT_NE(TapeHash(changed), base) << "field " << field;
  }
  GraphTape swapped = tape;
  std::swap(swapped.launches[0], swapped.launches[1]);
  EXPECT_NE(TapeHash(swapped), base);
}

TEST(GraphTape, EncodeDecodeRoundTrips) {
  const GraphTape tape = ThreeLaunches();
  const std::string text = EncodeTape(tape);
  EXPECT_EQ(text,
            "ember-graph-tape 1\n"
            "0123456789abcdef 132 256 0 12\n"
            "fedcba9876543210 264 128 4096 30\n"
            "0123456789abcdef 1 1024 0 12\n");
  const std::optional<GraphTape> back = DecodeTape(text);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, tape);
  EXPECT_EQ(TapeHash(*back), TapeHash(tape));
}

TEST(GraphTape, KernelsInFirstLaunchOrder) {
  EXPECT_EQ(TapeKernels(ThreeLaunches()),
            (std::vector<uint64_t>{0x0123456789abcdefULL, 0xfedcba9876543210ULL}));
}

TEST(GraphTape, DecodeRefusesWhatItDidNotWrite) {
  const std::string good = EncodeTape(ThreeLaunches());
  const std::string bad[] = {
      "",
      "ember-graph-tape 2\n0123456789abcdef 1 1 0 1\n",     // another layout
      "ember-graph-tape 1\n",                               // no launch
      "ember-graph-tape 1\n0123456789abcdef 1 1 0 1",       // unterminated line
      "ember-graph-tape 1\n0123456789abcdef 1 1 0\n",       // a field short
      "ember-graph-tape 1\n0123456789abcdef 1 1 0 1 9\n",   // a field more
      "ember-graph-tape 1\n0123456789abcdeg 1 1 0 1\n",     // not hex
      "ember-graph-tape 1\n0123456789abcdef 0 1 0 1\n",     // an empty grid
      "ember-graph-tape 1\n0123456789abcdef 1 2048 0 1\n",  // more threads than a block holds
      "ember-graph-tape 1\n0123456789abcdef -1 1 0 1\n",    // negative
      "ember-graph-tape 1\n0123456789abcdef 1 1 0 99999999999\n",  // out of range
      "ember-graph-tape 1\n0123456789abcdef 1 1 0 1\x1b[2J\n",     // a terminal escape
      good.substr(0, good.size() - 5) + "\n",
      // Launches this build would decode but never writes: one tape has one body.
      "ember-graph-tape 1\n1 1 1 0 00000000000\n",        // short hex, padded
      "ember-graph-tape 1\n0123456789ABCDEF 1 1 0 1\n",   // upper-case hex
      "ember-graph-tape 1\n0123456789abcdef  1 1 0 1\n",  // two spaces
      "ember-graph-tape 1\n0123456789abcdef 1 1 0 1 \n",  // a trailing space
      "ember-graph-tape 1\n00123456789abcdef 1 1 0 1\n",  // 17 digits
      "ember-graph-tape 1\n0123456789abcdef 01 1 0 1\n",  // a leading zero
  };
  for (const std::string& text : bad) {
    std::string why;
    EXPECT_FALSE(DecodeTape(text, &why).has_value()) << text;
    EXPECT_FALSE(why.empty()) << text;
  }
}

TEST(GraphTape, DecodeRefusesMoreThanTheMostLaunches) {
  GraphTape tape;
  tape.launches.assign(kMaxTapeLaunches, ThreeLaunches().launches[0]);
  ASSERT_TRUE(DecodeTape(EncodeTape(tape)).has_value());
  tape.launches.push_back(tape.launches[0]);
  std::string why;
  EXPECT_FALSE(DecodeTape(EncodeTape(tape), &why).has_value());
  EXPECT_NE(why.find("256"), std::string::npos) << why;
}

}  // namespace
}  // namespace ember
