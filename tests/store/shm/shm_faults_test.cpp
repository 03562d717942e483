// The fault matrix's shared-segment rows (issue 20): the segment truncated or removed under a
// running worker (Note [Truncated segment], mapping_guard.h), and /dev/shm full at start and
// while publishing. A worker never crashes and never takes a wrong plan: it drops the segment,
// says so once, and goes on with the plan database; the next opener makes a good segment.
// Garbage written over a live segment is shm_segment_fuzz's (tests/fuzz/). Each case runs in a
// forked child, so that a SIGBUS would fail the test instead of ending the test binary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/core/log.h"
#include "store/persistent_plans.h"
#include "tests/store/one_op_plans.h"
#include "tests/store/shm_test_util.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using test::FirstOp;
using test::Key;
using test::Payload;
using test::PlanStartingWith;
using testing::AllOf;
using testing::HasSubstr;

class ShmFaults : public test::ShmFixture {
 protected:
  // Runs `body` in a forked child; a crash there fails the test.
  static void InChild(const std::function<void()>& body) {
    const std::string skipped = test::RunInForkedChild(body);
    if (!skipped.empty()) GTEST_SKIP() << skipped;
  }

  std::unique_ptr<PersistentPlans> OpenPlans() const {
    std::unique_ptr<PersistentPlans> plans;
    const Status s = PersistentPlans::Open({.path = db_,
                                            .environment = test::SampleEnvironment(),
                                            .workload = "serve",
                                            .shm = true,
                                            .shm_bytes = uint64_t{4} << 20,
                                            .shm_wait_ms = 0},
                                           &plans);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return plans;
  }
};

const OpKind kKinds[] = {OpKind::kExp, OpKind::kTanh, OpKind::kSqrt};

// How many of `kinds` have their stored plan handed over, each the one stored.
size_t LoadPlans(PersistentPlans& plans, std::span<const OpKind> kinds) {
  return test::LoadOneOpPlans(plans, kinds);
}

TEST_F(ShmFaults, ASegmentTruncatedToNothingUnderThisProcessIsDroppedNotACrash) {
  InChild([&] {
    auto tier = OpenTier();
    ASSERT_EQ(tier->Publish(7, Key(1), Payload(1)), SharedPlanTier::PublishOutcome::kPublished);
    ASSERT_EQ(truncate(SegmentFile().c_str(), 0), 0);
    std::vector<SharedPlanTier::Entry> entries;
    const Status s = tier->Lookup(7, &entries);  // touches the header: SIGBUS without the guard
    EXPECT_FALSE(s.ok());
    EXPECT_THAT(s.message(), HasSubstr("truncated"));
    EXPECT_TRUE(entries.empty());
    EXPECT_TRUE(tier->broken());
    EXPECT_TRUE(tier->segment().lost());
    EXPECT_EQ(tier->Publish(7, Key(2), Payload(2)), SharedPlanTier::PublishOutcome::kBroken);
    bool recreated = false;
    auto fresh = OpenTier(uint64_t{4} << 20, "env-a", &recreated);
    ASSERT_NE(fresh, nullptr);
    EXPECT_TRUE(recreated);
    ASSERT_EQ(fresh->Publish(7, Key(3), Payload(3)), SharedPlanTier::PublishOutcome::kPublished);
    ASSERT_TRUE(fresh->Lookup(7, &entries).ok());
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].encoded_plan, Payload(3));
  });
}

// Shrunk to the fixed part: the header still reads, the entries are gone. A walk into them
// reads zeros instead (no entry is handed out), and the segment is broken from then on.
TEST_F(ShmFaults, ASegmentTruncatedToItsHeaderHandsOutNoEntryAndIsDropped) {
  InChild([&] {
    auto tier = OpenTier();
    for (uint64_t n = 1; n <= 3; ++n) tier->Publish(7, Key(n), Payload(n, 40000));
    ASSERT_EQ(truncate(SegmentFile().c_str(), static_cast<off_t>(shm::kDataOffset)), 0);
    std::vector<SharedPlanTier::Entry> entries;
    (void)tier->Lookup(7, &entries);
    EXPECT_TRUE(entries.empty());
    EXPECT_TRUE(tier->segment().lost());
    EXPECT_TRUE(tier->broken());
    EXPECT_FALSE(tier->Lookup(7, &entries).ok());
  });
}

// The engine's side: plans keep coming from the database, one line says what happened, and the
// worker moves to a recreated segment that siblings share again.
TEST_F(ShmFaults, AWorkerWhoseSegmentIsTruncatedGoesOnFromTheDatabaseAndRecreatesIt) {
  InChild([&] {
    std::unique_ptr<PersistentPlans> finder = OpenPlans();
    ASSERT_NE(finder, nullptr);
    for (PlanId id = 0; id < std::size(kKinds); ++id) {
      finder->OnPlanAdded(id, PlanStartingWith(kKinds[id]), 1.0);
    }
    finder->Flush();
    ScopedLogCapture capture(LogLevel::kBasic);
    std::unique_ptr<PersistentPlans> worker = OpenPlans();
    ASSERT_NE(worker, nullptr);
    const std::vector<std::string> names = SharedSegment::NamesFor(db_);
    ASSERT_EQ(names.size(), 1u);
    const std::string file = "/dev/shm/" + names[0];
    ASSERT_EQ(truncate(file.c_str(), 0), 0);
    EXPECT_EQ(LoadPlans(*worker, kKinds), std::size(kKinds));
    const std::vector<std::string> lines = capture.messages();
    EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                            [](const std::string& l) { return l.find("truncated") != l.npos; }),
              1)
        << testing::PrintToString(lines);
    EXPECT_THAT(lines, testing::Contains(AllOf(HasSubstr("truncated"), HasSubstr("recreated"))));
    struct stat st {};
    ASSERT_EQ(stat(file.c_str(), &st), 0);
    EXPECT_EQ(static_cast<uint64_t>(st.st_size), uint64_t{4} << 20);
    worker->Close();
    finder->Close();
  });
}

TEST_F(ShmFaults, ASegmentRemovedUnderAWorkerIsLeftForTheOneSiblingsUse) {
  InChild([&] {
    auto orphaned = OpenTier();
    ASSERT_EQ(orphaned->Publish(7, Key(1), Payload(1)), SharedPlanTier::PublishOutcome::kPublished);
    ASSERT_EQ(unlink(SegmentFile().c_str()), 0);
    auto sibling = OpenTier();  // a worker started after the removal makes a new segment
    std::vector<SharedPlanTier::Entry> entries;
    const Status s = orphaned->Lookup(7, &entries);
    EXPECT_FALSE(s.ok());
    EXPECT_THAT(s.message(), HasSubstr("removed"));
    EXPECT_EQ(orphaned->Publish(7, Key(2), Payload(2)), SharedPlanTier::PublishOutcome::kBroken);
    // Reopened, it shares the sibling's segment again.
    auto reopened = OpenTier();
    ASSERT_EQ(reopened->Publish(7, Key(3), Payload(3)), SharedPlanTier::PublishOutcome::kPublished);
    ASSERT_TRUE(sibling->Lookup(7, &entries).ok());
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].encoded_plan, Payload(3));
  });
}

// /dev/shm full: a tmpfs of its own over /dev/shm, in a mount namespace of the child's.
class DevShmFull : public ShmFaults {
 protected:
  static void InSmallDevShm(size_t bytes, const std::function<void()>& body) {
    const std::string skipped = sqlite_test::RunInMountNamespace([&] {
      ASSERT_EQ(sqlite_test::MountTmpfs("/dev/shm", bytes), "");
      body();
    });
    if (!skipped.empty()) GTEST_SKIP() << skipped;
  }
};

TEST_F(DevShmFull, AFullDevShmAtStartTurnsTheTierOffWithOneMessageAndPlansStillLoad) {
  {
    std::unique_ptr<PersistentPlans> finder;
    ASSERT_TRUE(
        PersistentPlans::Open(
            {.path = db_, .environment = test::SampleEnvironment(), .workload = "serve"}, &finder)
            .ok());
    for (PlanId id = 0; id < std::size(kKinds); ++id) {
      finder->OnPlanAdded(id, PlanStartingWith(kKinds[id]), 1.0);
    }
    finder->Close();
  }
  InSmallDevShm(size_t{1} << 20, [&] {
    sqlite_test::FillFilesystem("/dev/shm");
    ScopedLogCapture capture(LogLevel::kDisabled);
    std::unique_ptr<PersistentPlans> worker = OpenPlans();
    ASSERT_NE(worker, nullptr);
    EXPECT_EQ(LoadPlans(*worker, kKinds), std::size(kKinds));
    worker->Close();
    EXPECT_THAT(capture.messages(),
                testing::ElementsAre(AllOf(HasSubstr("shared-memory tier off"),
                                           HasSubstr("no room"), HasSubstr("/dev/shm"))));
    EXPECT_TRUE(SharedSegment::NamesFor(db_).empty());  // no half-made object left
  });
}

TEST_F(DevShmFull, ADevShmFillingWhilePublishingSkipsPublicationsAndServesWhatItHolds) {
  InSmallDevShm(size_t{1} << 20, [&] {
    auto tier = OpenTier(uint64_t{4} << 20);  // larger than /dev/shm: pages are taken as used
    ASSERT_NE(tier, nullptr);
    ASSERT_EQ(tier->Publish(7, Key(1), Payload(1)), SharedPlanTier::PublishOutcome::kPublished);
    sqlite_test::FillFilesystem("/dev/shm");
    SharedPlanTier::PublishOutcome last = SharedPlanTier::PublishOutcome::kPublished;
    for (uint64_t n = 2; n < 200 && last == SharedPlanTier::PublishOutcome::kPublished; ++n) {
      last = tier->Publish(7, Key(n), Payload(n, 8192));
    }
    EXPECT_EQ(last, SharedPlanTier::PublishOutcome::kFull);  // refused, not SIGBUS
    EXPECT_TRUE(tier->incomplete());
    EXPECT_FALSE(tier->broken());
    std::vector<SharedPlanTier::Entry> entries;
    ASSERT_TRUE(tier->Lookup(7, &entries).ok());
    ASSERT_FALSE(entries.empty());
    EXPECT_EQ(entries.back().encoded_plan, Payload(1));
  });
}

}  // namespace
}  // namespace ember
