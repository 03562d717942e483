// The fusion log: levels, the lazily built message, captures, and the sinks (stderr, a file, a
// file that cannot be opened). Every test starts from SetGlobalConfigForTesting, so the
// machine's EMBER_LOG does not matter.
#include "engine/core/log.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "tests/core/config_test_util.h"

namespace ember {
namespace {

using config_test::ReadFile;
using config_test::TempDir;
using testing::ElementsAre;
using testing::IsEmpty;

class LogTest : public testing::Test {
 protected:
  void SetUp() override { SetGlobalConfigForTesting(Config{}); }
  void TearDown() override { SetGlobalConfigForTesting(Config{}); }

  static void UseConfig(LogLevel level, std::string file = "") {
    Config config;
    config.log_level = level;
    config.log_file = std::move(file);
    SetGlobalConfigForTesting(config);
  }
};

TEST_F(LogTest, DisabledNeverBuildsTheMessage) {
  int built = 0;
  for (LogLevel level : {LogLevel::kBasic, LogLevel::kMedium, LogLevel::kFull}) {
    EXPECT_FALSE(LogEnabled(level));
    LogFusion(level, [&] {
      ++built;
      return std::string("never");
    });
  }
  EXPECT_EQ(built, 0);
}

TEST_F(LogTest, ConfiguredLevelEnablesItselfAndBelow) {
  UseConfig(LogLevel::kMedium);
  EXPECT_TRUE(LogEnabled(LogLevel::kBasic));
  EXPECT_TRUE(LogEnabled(LogLevel::kMedium));
  EXPECT_FALSE(LogEnabled(LogLevel::kFull));
  // A message "at level disabled" is meaningless and never written.
  EXPECT_FALSE(LogEnabled(LogLevel::kDisabled));
}

TEST_F(LogTest, CaptureOverridesTheConfiguredLevelAndRestoresIt) {
  EXPECT_FALSE(LogEnabled(LogLevel::kFull));
  {
    ScopedLogCapture capture(LogLevel::kFull);
    EXPECT_TRUE(LogEnabled(LogLevel::kFull));
    LogFusion(LogLevel::kFull, [] { return std::string("[plan] cache hit: execute plan #2"); });
    EXPECT_THAT(capture.messages(), ElementsAre("[plan] cache hit: execute plan #2"));
  }
  EXPECT_FALSE(LogEnabled(LogLevel::kBasic));
}

TEST_F(LogTest, CaptureBelowAMessagesLevelSkipsItsClosure) {
  UseConfig(LogLevel::kFull);  // The capture's level wins, even when lower.
  ScopedLogCapture capture(LogLevel::kBasic);
  int built = 0;
  LogFusion(LogLevel::kMedium, [&] {
    ++built;
    return std::string("medium");
  });
  LogFusion(LogLevel::kBasic, [&] {
    ++built;
    return std::string("selected single strategy");
  });
  EXPECT_EQ(built, 1);
  EXPECT_THAT(capture.messages(), ElementsAre("selected single strategy"));
}

TEST_F(LogTest, NestedCapturesReceiveInnermostFirst) {
  ScopedLogCapture outer(LogLevel::kMedium);
  LogFusion(LogLevel::kMedium, [] { return std::string("a"); });
  {
    ScopedLogCapture inner(LogLevel::kFull);
    LogFusion(LogLevel::kFull, [] { return std::string("b"); });
    EXPECT_THAT(inner.messages(), ElementsAre("b"));
  }
  EXPECT_FALSE(LogEnabled(LogLevel::kFull));  // Back to the outer capture's level.
  LogFusion(LogLevel::kMedium, [] { return std::string("c"); });
  EXPECT_THAT(outer.messages(), ElementsAre("a", "c"));
}

TEST_F(LogTest, MultiLineMessageIsOneMessageAndSeveralLines) {
  ScopedLogCapture capture;
  LogFusion(LogLevel::kFull,
            [] { return std::string("fusion trace (1 op, 1 block)\nidx  block"); });
  LogFusion(LogLevel::kFull, [] { return std::string("[plan] done"); });
  EXPECT_THAT(capture.messages(),
              ElementsAre("fusion trace (1 op, 1 block)\nidx  block", "[plan] done"));
  EXPECT_THAT(capture.lines(),
              ElementsAre("fusion trace (1 op, 1 block)", "idx  block", "[plan] done"));
  capture.Clear();
  EXPECT_THAT(capture.messages(), IsEmpty());
}

TEST_F(LogTest, ConcurrentMessagesAllArriveWhole) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 500;
  ScopedLogCapture capture;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < kPerThread; ++i) {
        LogFusion(LogLevel::kFull, [&] { return fmt::format("[t{}] {}", t, i); });
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::vector<std::string> messages = capture.messages();
  ASSERT_EQ(messages.size(), size_t{kThreads * kPerThread});
  // Each thread's messages arrive in its own order.
  std::vector<int> next(kThreads, 0);
  for (const std::string& message : messages) {
    int t = -1;
    int i = -1;
    ASSERT_EQ(std::sscanf(message.c_str(), "[t%d] %d", &t, &i), 2) << message;
    ASSERT_EQ(message, fmt::format("[t{}] {}", t, i));
    EXPECT_EQ(i, next[t]++);
  }
}

TEST_F(LogTest, DefaultSinkIsStderr) {
  UseConfig(LogLevel::kBasic);
  testing::internal::CaptureStderr();
  LogFusion(LogLevel::kBasic,
            [] { return std::string("selected composed strategy (2 sub-strategies)"); });
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "selected composed strategy (2 sub-strategies)\n");
}

TEST_F(LogTest, FileSinkAppends) {
  TempDir dir;
  const std::string path = dir.Write("fusion.log", "earlier run\n");
  UseConfig(LogLevel::kFull, path);
  testing::internal::CaptureStderr();
  LogFusion(LogLevel::kFull,
            [] { return std::string("[stream] op 0 Float::Exp → new block (total: 1)"); });
  LogFusion(LogLevel::kMedium, [] { return std::string("two\nlines"); });
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(ReadFile(path),
            "earlier run\n[stream] op 0 Float::Exp → new block (total: 1)\ntwo\nlines\n");
}

// Eight threads write long lines into one file; every line must come out whole.
TEST_F(LogTest, ConcurrentFileLinesNeverInterleave) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 400;
  TempDir dir;
  const std::string path = (dir.path() / "fusion.log").string();
  UseConfig(LogLevel::kFull, path);
  auto line_of = [](int t, int i) {
    return fmt::format("[t{}] {:04} {}", t, i, std::string(200, 'a' + t));
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &line_of] {
      for (int i = 0; i < kPerThread; ++i) {
        LogFusion(LogLevel::kFull, [&] { return line_of(t, i); });
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  const std::string text = ReadFile(path);
  std::vector<int> next(kThreads, 0);
  int lines = 0;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    ASSERT_NE(end, std::string::npos) << "last line has no newline";
    const std::string line = text.substr(start, end - start);
    int t = -1;
    int i = -1;
    ASSERT_EQ(std::sscanf(line.c_str(), "[t%d] %d", &t, &i), 2) << line;
    ASSERT_TRUE(t >= 0 && t < kThreads) << line;
    ASSERT_EQ(line, line_of(t, i));
    EXPECT_EQ(i, next[t]++);
    ++lines;
    start = end + 1;
  }
  EXPECT_EQ(lines, kThreads * kPerThread);
}

TEST_F(LogTest, UnopenableFileWarnsOnceAndFallsBackToStderr) {
  const std::string path = "/nonexistent-ember-dir/fusion.log";
  UseConfig(LogLevel::kBasic, path);
  testing::internal::CaptureStderr();
  LogFusion(LogLevel::kBasic, [] { return std::string("first"); });
  LogFusion(LogLevel::kBasic, [] { return std::string("second"); });
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            fmt::format("ember: log: cannot open [fusion.log] file \"{}\" (No such file or "
                        "directory); logging to stderr\nfirst\nsecond\n",
                        path));
}

TEST_F(LogTest, NewConfigurationReopensTheSink) {
  TempDir dir;
  const std::string first = (dir.path() / "a.log").string();
  const std::string second = (dir.path() / "b.log").string();
  UseConfig(LogLevel::kBasic, first);
  LogFusion(LogLevel::kBasic, [] { return std::string("to a"); });
  UseConfig(LogLevel::kBasic, second);
  LogFusion(LogLevel::kBasic, [] { return std::string("to b"); });
  EXPECT_EQ(ReadFile(first), "to a\n");
  EXPECT_EQ(ReadFile(second), "to b\n");
}

TEST_F(LogTest, CaptureTakesMessagesAwayFromTheFile) {
  TempDir dir;
  const std::string path = (dir.path() / "fusion.log").string();
  UseConfig(LogLevel::kFull, path);
  {
    ScopedLogCapture capture;
    LogFusion(LogLevel::kFull, [] { return std::string("captured"); });
    EXPECT_THAT(capture.messages(), ElementsAre("captured"));
  }
  LogFusion(LogLevel::kFull, [] { return std::string("written"); });
  EXPECT_EQ(ReadFile(path), "written\n");
}

TEST_F(LogTest, WarningsAreWrittenAtTheDefaultLevelOncePerKey) {
  ScopedLogCapture capture(LogLevel::kDisabled);
  EXPECT_TRUE(Warn("log-test-key-a", "first"));
  EXPECT_FALSE(Warn("log-test-key-a", "again"));
  EXPECT_TRUE(Warn("log-test-key-b", "other key"));
  EXPECT_TRUE(Warn("", "no key"));
  EXPECT_TRUE(Warn("", "no key"));
  EXPECT_THAT(capture.messages(),
              ElementsAre("ember: first", "ember: other key", "ember: no key", "ember: no key"));
}

TEST_F(LogTest, WarningsGoToStderrNotTheLogFile) {
  TempDir dir;
  const std::string path = (dir.path() / "fusion.log").string();
  UseConfig(LogLevel::kFull, path);
  testing::internal::CaptureStderr();
  Warn("", "to stderr");
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "ember: to stderr\n");
  LogFusion(LogLevel::kFull, [] { return std::string("logged"); });
  EXPECT_EQ(ReadFile(path), "logged\n");
}

}  // namespace
}  // namespace ember
