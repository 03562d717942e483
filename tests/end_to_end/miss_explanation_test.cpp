// Explaining a miss end to end (Note [Explaining a miss], engine/stream/miss_explanation.h;
// docs/PLAN_DATABASE.md, "Why a segment missed"): the real fusers and CPU backend, the engine's
// own log at medium, ember::Stats' misses by cause. The plan database's side (candidates read
// from SQLite, another environment's plans, the workload_misses table and `ember-plans
// explain`): tests/tools/plans/explain_command_test.cpp.
#include <functional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "engine/core/config.h"
#include "engine/core/log.h"
#include "tests/api/api_test_util.h"
#include "tools/lab/seed_programs.h"

namespace ember {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;
using ::testing::StartsWith;

// The miss lines of segments that compute (the uploads' Random and the Drops explore too).
std::vector<std::string> MissLines(const ScopedLogCapture& capture) {
  std::vector<std::string> out;
  for (const std::string& line : capture.lines()) {
    if (line.starts_with("[plan] miss (") && line.find("Float::Random") == std::string::npos &&
        line.find("Drop") == std::string::npos) {
      out.push_back(line);
    }
  }
  return out;
}

// Each test starts on a device with an empty plan store, on a fresh stream.
void OnFreshDevice(const std::function<void()>& fn) {
  ReleaseDevice(Device::Cpu());
  testing::OnFreshStream(fn);
}

Tensor Random(std::vector<int64_t> shape) { return Tensor::RandomUniform(shape, DType::kF32); }

// (a * b + c * 2.0).exp() on fresh inputs of `shape`, run to the host.
void Seed(std::vector<int64_t> shape) {
  Tensor a = Random(shape), b = Random(shape), c = Random(shape);
  Sync();
  (void)lab::SeedExpression(a, b, c, 2.0).ToVector<float>();
}

TEST(MissExplanationEndToEnd, TheSeeds64By32StepNamesTheShapeWithItsDims) {
  OnFreshDevice([] {
    ScopedLogCapture capture(LogLevel::kMedium);
    Seed({64, 64});
    EXPECT_THAT(
        MissLines(capture),
        ElementsAre("[plan] miss (no_candidate): no stored plan starts with NumericFloat::Mul"));
    capture.Clear();
    Seed({64, 64});
    Seed({32, 32});
    EXPECT_THAT(MissLines(capture), IsEmpty()) << "cache hits explain nothing";
    Seed({64, 32});
    const std::vector<std::string> lines = MissLines(capture);
    ASSERT_THAT(lines, SizeIs(1));
    EXPECT_THAT(lines[0], StartsWith("[plan] miss (shape): nearest plan #"));
    EXPECT_THAT(lines[0],
                HasSubstr("differs at op 0 (NumericFloat::Mul): input 0 shape [1,2] vs [1,1] "
                          "(64×32 gives [1,2], the stored plan has [1,1] from 64×64): dim 1 "
                          "differs"));
  });
}

TEST(MissExplanationEndToEnd, AScalarThatBecameATensorIsNamed) {
  OnFreshDevice([] {
    Tensor a = Random({16, 16}), b = Random({16, 16}), c = Random({16, 16}), d = Random({16, 16});
    Sync();
    (void)lab::SeedExpression(a, b, c, 2.0).ToVector<float>();
    ScopedLogCapture capture(LogLevel::kMedium);
    Tensor ab = a * b;
    Tensor cd = c * d;
    (void)(std::move(ab) + std::move(cd)).Exp().ToVector<float>();
    EXPECT_THAT(MissLines(capture),
                Contains(HasSubstr("differs at op 1 (NumericFloat::Mul): NumericFloat::Mul vs "
                                   "NumericFloat::MulScalar (a scalar operand became a tensor)")));
  });
}

TEST(MissExplanationEndToEnd, AValueKeptAliveIsAStatusDifference) {
  OnFreshDevice([] {
    Tensor a = Random({16, 16}), b = Random({16, 16}), c = Random({16, 16});
    Sync();
    (void)lab::SeedExpression(a, b, c, 2.0).ToVector<float>();
    ScopedLogCapture capture(LogLevel::kMedium);
    // As lab::SeedExpression, but the sum is kept: it is read again after the exp.
    Tensor ab = a * b;
    Tensor cs = c * 2.0;
    Tensor sum = std::move(ab) + std::move(cs);
    Tensor out = sum.Exp();
    (void)out.ToVector<float>();
    const std::vector<std::string> lines = MissLines(capture);
    ASSERT_THAT(lines, SizeIs(1));
    EXPECT_THAT(lines[0], HasSubstr("differs at op 3 (Float::Exp): input 0 is ReadOnly vs "
                                    "ReadWrite (here still used after this op, in the stored "
                                    "plan its last use)"));
    (void)sum.ToVector<float>();
  });
}

TEST(MissExplanationEndToEnd, ALongerSegmentAtASyncIsAnOpCount) {
  OnFreshDevice([] {
    Tensor a = Random({16, 16}), b = Random({16, 16}), c = Random({16, 16});
    Sync();
    (void)lab::SeedExpression(a, b, c, 2.0).ToVector<float>();
    ScopedLogCapture capture(LogLevel::kMedium);
    (void)lab::SeedExpression(a, b, c, 2.0).Log().ToVector<float>();
    EXPECT_THAT(MissLines(capture),
                Contains(HasSubstr("matches the first 4 op(s), but the segment has 5 at a sync")));
  });
}

TEST(MissExplanationEndToEnd, NothingAtBasicAndTheCausesAreCountedAtAnyLevel) {
  OnFreshDevice([] {
    const Stats before = GetStats();
    ScopedLogCapture capture(LogLevel::kBasic);
    Seed({8, 8});
    Seed({8, 4});
    Seed({8, 4});  // a hit
    Tensor a = Random({8, 8});
    Sync();
    Tensor kept = a * 2.0;  // no stored plan starts with MulScalar
    (void)kept.Exp().ToVector<float>();
    (void)kept.ToVector<float>();
    EXPECT_THAT(MissLines(capture), IsEmpty());
    for (const std::string& line : capture.lines()) EXPECT_THAT(line, Not(HasSubstr("miss")));
    const Stats after = GetStats();
    // 8×4's uploads, its compute and its drops each miss the 8×8 plans on shape.
    EXPECT_EQ(after.misses.shape - before.misses.shape, 3u);
    EXPECT_GE(after.misses.no_candidate - before.misses.no_candidate, 1u);
    EXPECT_EQ(after.misses.total() - before.misses.total(),
              after.explorations - before.explorations);
  });
}

// ember::RecentMisses keeps the explanations whatever the level (ember-lab shows them without
// a log): the newest 16, oldest first, across the device's streams.
TEST(MissExplanationEndToEnd, RecentMissesKeepTheNewestExplanationsAtAnyLevel) {
  OnFreshDevice([] {
    ScopedLogCapture capture(LogLevel::kBasic);
    Seed({64, 64});
    Seed({64, 32});
    const std::vector<std::string> recent = RecentMisses();
    EXPECT_THAT(recent, Contains(HasSubstr("[plan] miss (shape): nearest plan #")));
    EXPECT_THAT(recent, Contains(HasSubstr("(NumericFloat::Mul): input 0 shape [1,2] vs [1,1] "
                                           "(64×32 gives [1,2], the stored plan has [1,1] from "
                                           "64×64)")));
    EXPECT_THAT(recent.front(), HasSubstr("(no_candidate)")) << "the oldest first";
    for (size_t n = 2; n <= 21; ++n) {  // a Cat of another arity each time: 20 more misses
      std::vector<Tensor> parts(n, Tensor::Full({1, 4}, 1.0, DType::kF32));
      (void)(Cat(std::move(parts), 0) * 2.0).ToVector<float>();
    }
    const std::vector<std::string> after = RecentMisses();
    EXPECT_THAT(after, SizeIs(16));
    EXPECT_THAT(after, Not(Contains(HasSubstr("(no_candidate)")))) << "the oldest went";
    EXPECT_THAT(MissLines(capture), IsEmpty()) << "nothing logged at basic";
  });
  ReleaseDevice(Device::Cpu());
  EXPECT_THAT(RecentMisses(), IsEmpty()) << "a released device starts again";
}

}  // namespace
}  // namespace ember
