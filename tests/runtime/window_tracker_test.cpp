// WindowTracker (engine/runtime/window_tracker.h): the decisions of launch windows, without a
// GPU. Launches are named by a letter (their kernel); a window is a string of them.
#include "engine/runtime/window_tracker.h"

#include <gtest/gtest.h>

#include <string>

namespace ember {
namespace {

using Action = WindowTracker::LaunchAction;
using Kind = WindowTracker::EndAction::Kind;

TapeLaunch L(char kernel) {
  return {.kernel = static_cast<uint64_t>(kernel), .grid = 132, .threads = 256, .arg_words = 8};
}

GraphTape Tape(const std::string& launches) {
  GraphTape tape;
  for (char c : launches) tape.launches.push_back(L(c));
  return tape;
}

// Runs one window: its launches, then its end; returns the launch actions as letters
// (d: direct, h: hold, v: diverged) and the end action. Captures when asked.
struct Ran {
  std::string actions;
  WindowTracker::EndAction end;
  WindowTracker::GraphId captured = 0;
  std::vector<WindowTracker::GraphId> evicted;
};
Ran RunWindow(WindowTracker& t, const std::string& launches) {
  Ran ran;
  for (char c : launches) {
    const Action a = t.OnLaunch(L(c));
    ran.actions += a == Action::kDirect ? 'd' : a == Action::kHold ? 'h' : 'v';
  }
  ran.end = t.End();
  if (ran.end.capture) {
    WindowTracker::Kept kept = t.Captured();
    ran.captured = kept.id;
    ran.evicted = kept.evicted;
  }
  return ran;
}

TEST(WindowTracker, ATapeIsCapturedAfterItsEagerRunsThenHeldAndReplayed) {
  WindowTracker t({.after = 2});
  Ran first = RunWindow(t, "abc");
  EXPECT_EQ(first.actions, "ddd");
  EXPECT_EQ(first.end.kind, Kind::kNothing);
  EXPECT_FALSE(first.end.capture);
  Ran second = RunWindow(t, "abc");
  EXPECT_TRUE(second.end.capture);
  EXPECT_EQ(second.end.runs, 2u);
  EXPECT_FALSE(second.end.from_recipe);
  ASSERT_NE(second.captured, 0u);
  EXPECT_EQ(t.graphs(), 1u);
  EXPECT_EQ(t.GraphTapeOf(second.captured), Tape("abc"));
  // Held from its first launch; complete at its last, before any end.
  EXPECT_EQ(t.OnLaunch(L('a')), Action::kHold);
  EXPECT_EQ(t.OnLaunch(L('b')), Action::kHold);
  EXPECT_FALSE(t.complete());
  EXPECT_EQ(t.OnLaunch(L('c')), Action::kHold);
  EXPECT_TRUE(t.complete());
  const WindowTracker::EndAction end = t.End();
  EXPECT_EQ(end.kind, Kind::kReplay);
  EXPECT_EQ(end.graph, second.captured);
  EXPECT_FALSE(end.capture);
  EXPECT_FALSE(t.in_window());
}

TEST(WindowTracker, OneLaunchIsNeverCaptured) {
  WindowTracker t({.after = 1});
  for (int i = 0; i < 4; ++i) EXPECT_FALSE(RunWindow(t, "a").end.capture);
  EXPECT_EQ(t.graphs(), 0u);
}

TEST(WindowTracker, AHeldWindowThatDivergesRunsEagerlyAndIsCountedAsItself) {
  WindowTracker t({.after = 2});
  RunWindow(t, "ab");
  ASSERT_TRUE(RunWindow(t, "ab").end.capture);
  Ran diverged = RunWindow(t, "axy");
  EXPECT_EQ(diverged.actions, "hvd");
  EXPECT_EQ(diverged.end.kind, Kind::kNothing);
  // "axy" is a tape of its own: captured after its own runs.
  EXPECT_TRUE(RunWindow(t, "axy").end.capture);
  EXPECT_EQ(t.graphs(), 2u);
}

TEST(WindowTracker, AHeldWindowThatEndsEarlyRunsEagerlyAndIsCounted) {
  WindowTracker t({.after = 2});
  RunWindow(t, "abc");
  ASSERT_TRUE(RunWindow(t, "abc").end.capture);
  Ran early = RunWindow(t, "ab");
  EXPECT_EQ(early.actions, "hh");
  EXPECT_EQ(early.end.kind, Kind::kEndedEarly);
  EXPECT_FALSE(early.end.capture);
  Ran again = RunWindow(t, "ab");
  EXPECT_EQ(again.end.kind, Kind::kEndedEarly);
  EXPECT_TRUE(again.end.capture) << "the shorter window repeated: it is a graph of its own";
  // Both kept: "ab" is not complete while "abc" may still follow; "abc" is.
  EXPECT_EQ(t.OnLaunch(L('a')), Action::kHold);
  EXPECT_EQ(t.OnLaunch(L('b')), Action::kHold);
  EXPECT_FALSE(t.complete());
  EXPECT_EQ(t.OnLaunch(L('c')), Action::kHold);
  EXPECT_TRUE(t.complete());
  EXPECT_EQ(t.End().graph, 1u);
  // And "ab" alone replays its own graph.
  Ran ab = RunWindow(t, "ab");
  EXPECT_EQ(ab.end.kind, Kind::kReplay);
  EXPECT_EQ(ab.end.graph, again.captured);
}

TEST(WindowTracker, AGraphThatIsAPrefixCompletesFirst) {
  WindowTracker t({.after = 2});
  RunWindow(t, "ab");
  ASSERT_TRUE(RunWindow(t, "ab").end.capture);
  // "abc" now completes "ab" at its second launch; the caller ends the window there, and "c"
  // begins the next one.
  EXPECT_EQ(t.OnLaunch(L('a')), Action::kHold);
  EXPECT_EQ(t.OnLaunch(L('b')), Action::kHold);
  EXPECT_TRUE(t.complete());
  EXPECT_EQ(t.End().kind, Kind::kReplay);
  EXPECT_EQ(t.OnLaunch(L('c')), Action::kDirect);
}

TEST(WindowTracker, ARecipeCapturesAtTheFirstRunAndAForgedOneDoesNot) {
  WindowTracker t({.after = 5});
  t.AddRecipe(TapeHash(Tape("abc")), Tape("abc"));
  // A recipe under another tape's key that is not that tape lowers nothing.
  t.AddRecipe(TapeHash(Tape("xyz")), Tape("xyw"));
  const Ran abc = RunWindow(t, "abc");
  EXPECT_TRUE(abc.end.capture);
  EXPECT_TRUE(abc.end.from_recipe);
  EXPECT_EQ(abc.end.runs, 1u);
  EXPECT_FALSE(RunWindow(t, "xyz").end.capture);
  EXPECT_TRUE(t.HasRecipe(TapeHash(Tape("abc"))));
}

TEST(WindowTracker, TheCapacityEvictsTheLeastRecentlyUsed) {
  WindowTracker t({.after = 2, .capacity = 2});
  WindowTracker::GraphId ids[3] = {};
  const std::string tapes[3] = {"ab", "cd", "ef"};
  for (int k = 0; k < 3; ++k) {
    RunWindow(t, tapes[k]);
    ids[k] = RunWindow(t, tapes[k]).captured;
    ASSERT_NE(ids[k], 0u);
    if (k == 1) EXPECT_EQ(RunWindow(t, "ab").end.kind, Kind::kReplay);  // "ab" used last: "cd" goes
  }
  EXPECT_EQ(t.graphs(), 2u);
  EXPECT_EQ(RunWindow(t, "cd").end.kind, Kind::kNothing) << "evicted";
  EXPECT_EQ(RunWindow(t, "ab").end.kind, Kind::kReplay);
  EXPECT_EQ(RunWindow(t, "ef").end.kind, Kind::kReplay);
  // An evicted tape repeats again before it is captured again.
  const Ran cd = RunWindow(t, "cd");
  EXPECT_TRUE(cd.end.capture);
  ASSERT_EQ(cd.evicted.size(), 1u);
  EXPECT_EQ(cd.evicted[0], ids[0]) << "\"ab\" was used before \"ef\"";
}

TEST(WindowTracker, ARefusedCaptureIsNotAskedAgain) {
  WindowTracker t({.after = 2});
  RunWindow(t, "ab");
  t.OnLaunch(L('a'));
  t.OnLaunch(L('b'));
  ASSERT_TRUE(t.End().capture);
  t.Refused();
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(RunWindow(t, "ab").end.capture);
}

TEST(WindowTracker, AWindowIsFullAtItsMostLaunches) {
  WindowTracker t({.most_launches = 3});
  t.OnLaunch(L('a'));
  t.OnLaunch(L('b'));
  EXPECT_FALSE(t.full());
  t.OnLaunch(L('c'));
  EXPECT_TRUE(t.full());
  t.End();
  EXPECT_FALSE(t.full());
  EXPECT_FALSE(t.in_window());
  EXPECT_EQ(t.End().kind, Kind::kNothing) << "a second end ends nothing";
}

TEST(WindowTracker, GeometryIsPartOfTheTape) {
  WindowTracker t({.after = 2});
  RunWindow(t, "ab");
  ASSERT_TRUE(RunWindow(t, "ab").end.capture);
  TapeLaunch wider = L('a');
  wider.grid = 264;
  EXPECT_EQ(t.OnLaunch(wider), Action::kDirect) << "another grid is another launch";
}

}  // namespace
}  // namespace ember
