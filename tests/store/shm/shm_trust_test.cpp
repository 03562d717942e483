// Note [Shared segment trust] with a real second user: one who can write a segment forges an
// entry (one byte changed, its checksum recomputed) and the next open refuses the segment
// instead of serving the forged plan. Segments and lock objects owned by another user or
// writable by others are refused on every open; allow_shared_writable accepts the writable ones.
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gmock/gmock.h>

#include "store/shm/shared_segment_info.h"
#include "store/shm/shared_segment_layout.h"
#include "tests/store/shm_test_util.h"

namespace ember {
namespace {

using test::Key;
using test::Payload;
using testing::HasSubstr;

class ShmTrust : public test::ShmFixture {
 protected:
  // Also a lock object left without its segment.
  ~ShmTrust() override { SharedSegment::Remove(db_, "env-a"); }

  // A segment of this user holding Payload(1) for first op 4, closed again.
  void PublishOnePlan() {
    auto tier = OpenTier();
    ASSERT_NE(tier, nullptr);
    ASSERT_EQ(tier->Publish(4, Key(1), Payload(1)), SharedPlanTier::PublishOutcome::kPublished);
  }
  Status Open(std::unique_ptr<SharedPlanTier>* tier, bool allow_shared_writable = false) const {
    SharedSegmentOptions options = Options();
    options.allow_shared_writable = allow_shared_writable;
    return SharedPlanTier::Open(options, tier);
  }
  std::string LockFile() const { return SegmentFile() + ".lock"; }

  // Opens the segment although it is writable (allow_shared_writable) and returns what a lookup
  // of first op 4 serves: proof that the forgery passes the entry checksum.
  std::vector<SharedPlanTier::Entry> ServedDespiteTheMode() const {
    std::unique_ptr<SharedPlanTier> tier;
    std::vector<SharedPlanTier::Entry> entries;
    EXPECT_TRUE(Open(&tier, true).ok());
    if (tier != nullptr) {
      EXPECT_TRUE(tier->Lookup(4, &entries).ok());
      EXPECT_EQ(tier->corrupt_entries(), 0u);
    }
    return entries;
  }

  void ExpectRefusedForMode(const Status& s, std::string_view mode) const {
    const std::string file = SegmentFile();
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
    EXPECT_THAT(s.message(), HasSubstr("refusing shared plan segment " + file));
    EXPECT_THAT(s.message(),
                HasSubstr(fmt::format("writable by group and others (mode {})", mode)));
    EXPECT_THAT(s.message(), HasSubstr("plans are read from and written to the plan database"));
    EXPECT_THAT(s.message(), HasSubstr("Fix: remove it (rm " + file));
    EXPECT_THAT(s.message(), HasSubstr("[store] allow_shared_writable = true"));
  }
};

// The recipe of issue 13, part 2, with a real second user: the segment is 0666, nobody rewrites a
// plan in it, and the next open refuses it. Without the check the forgery would be served: it
// passes the checksum.
TEST_F(ShmTrust, ASecondUserForgesAPlanInAWritableSegmentAndTheNextOpenRefusesIt) {
  PublishOnePlan();
  ASSERT_EQ(::chmod(SegmentFile().c_str(), 0666), 0);
  const int forged = test::RunAsOtherUser([&] { return test::ForgeEntry(SegmentFile()); });
  if (forged == test::kCannotSwitchUser) {
    GTEST_SKIP() << "this process cannot become uid " << test::kOtherUser
                 << " (not root, or no CAP_SETUID); ForgedInAWritableSegmentWithoutASecondUser "
                    "covers the mode";
  }
  ASSERT_EQ(forged, 0) << "uid " << test::kOtherUser << " could not rewrite the 0666 segment";

  std::unique_ptr<SharedPlanTier> tier;
  ExpectRefusedForMode(Open(&tier), "0666");
  EXPECT_EQ(tier, nullptr);
  // A refused segment is left as it is: not removed, not recreated.
  struct stat st {};
  ASSERT_EQ(::stat(SegmentFile().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666u);

  const std::vector<SharedPlanTier::Entry> served = ServedDespiteTheMode();
  ASSERT_EQ(served.size(), 1u);
  EXPECT_NE(served[0].encoded_plan, Payload(1));
}

// Where no second user can be had: the same forgery by a forked writer of this user. The mode
// alone decides: anyone could have written a 0666 segment.
TEST_F(ShmTrust, ForgedInAWritableSegmentWithoutASecondUser) {
  PublishOnePlan();
  ASSERT_EQ(::chmod(SegmentFile().c_str(), 0666), 0);
  ASSERT_EQ(test::WaitChild(test::ForkCheck([&] { return test::ForgeEntry(SegmentFile()); })), 0);
  std::unique_ptr<SharedPlanTier> tier;
  ExpectRefusedForMode(Open(&tier), "0666");
  const std::vector<SharedPlanTier::Entry> served = ServedDespiteTheMode();
  ASSERT_EQ(served.size(), 1u);
  EXPECT_NE(served[0].encoded_plan, Payload(1));
}

TEST_F(ShmTrust, EveryOpenChecksIncludingInspectionAndOpensAfterAnEarlierOne) {
  PublishOnePlan();
  std::unique_ptr<SharedPlanTier> first;
  ASSERT_TRUE(Open(&first).ok());
  ASSERT_EQ(::chmod(SegmentFile().c_str(), 0620), 0);
  std::unique_ptr<SharedPlanTier> second;
  const Status s = Open(&second);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("writable by group (mode 0620)"));
  std::vector<Hash128> keys;
  EXPECT_EQ(SharedPlanTier::ListKeys(db_, "env-a", &keys).code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(keys.empty());
}

TEST_F(ShmTrust, ASegmentOwnedByAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving a segment to another user needs root";
  PublishOnePlan();
  ASSERT_EQ(::chown(SegmentFile().c_str(), test::kOtherUser, test::kOtherUser), 0);
  for (bool allow : {false, true}) {
    std::unique_ptr<SharedPlanTier> tier;
    const Status s = Open(&tier, allow);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
    EXPECT_THAT(s.message(), HasSubstr(fmt::format("it is owned by uid {}, not by this user",
                                                   test::kOtherUser)));
    EXPECT_THAT(s.message(), HasSubstr(fmt::format("Fix: have uid {} or root remove it (rm {})",
                                                   test::kOtherUser, SegmentFile())));
  }
  // What `ember-plans shm ls` says of it.
  std::vector<SharedSegmentInfo> infos;
  ASSERT_TRUE(InspectSharedSegments(db_, {"env-a"}, &infos).ok());
  ASSERT_EQ(infos.size(), 1u);
  EXPECT_EQ(infos[0].state, "untrusted");
  EXPECT_EQ(infos[0].problem, fmt::format("it is owned by uid {}", test::kOtherUser));
}

// A second user's 0600 objects cannot even be opened by this one: the refusal still names the
// owner and the fix instead of saying "Permission denied".
TEST_F(ShmTrust, ObjectsOfAnotherUserThatCannotBeOpenedAreRefusedWithTheirOwner) {
  constexpr uid_t kThirdUser = test::kOtherUser - 1;
  PublishOnePlan();
  for (const std::string& file : {SegmentFile(), LockFile()}) {
    ASSERT_EQ(::chown(file.c_str(), kThirdUser, kThirdUser), 0) << file;
  }
  const int refused = test::RunAsOtherUser([&] {
    SharedSegmentOptions options = Options();
    std::unique_ptr<SharedPlanTier> tier;
    const Status lock = SharedPlanTier::Open(options, &tier);
    std::vector<Hash128> keys;  // inspection takes no lock: the segment itself is judged
    const Status segment = SharedPlanTier::ListKeys(db_, "env-a", &keys);
    const std::string owned = fmt::format("owned by uid {}", kThirdUser);
    return lock.code() == Status::Code::kInvalidArgument &&
           lock.message().find(LockFile() + ", the lock of a shared plan segment") !=
               std::string::npos &&
           lock.message().find(owned) != std::string::npos &&
           segment.code() == Status::Code::kInvalidArgument &&
           segment.message().find("refusing shared plan segment " + SegmentFile()) !=
               std::string::npos &&
           segment.message().find(owned) != std::string::npos;
  });
  if (refused == test::kCannotSwitchUser) GTEST_SKIP() << "this process cannot switch users";
  EXPECT_EQ(refused, 0);
}

TEST_F(ShmTrust, ALockObjectOthersCanWriteOrOwnIsRefusedBeforeAnythingIsCreated) {
  // A lock object left by someone else, and no segment yet.
  { auto tier = OpenTier(); }
  ASSERT_EQ(::unlink(SegmentFile().c_str()), 0);
  ASSERT_EQ(::chmod(LockFile().c_str(), 0606), 0);
  std::unique_ptr<SharedPlanTier> tier;
  Status s = Open(&tier);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("refusing " + LockFile() +
                                     ", the lock of a shared plan "
                                     "segment: it is writable by others (mode 0606)"));
  struct stat st {};
  EXPECT_NE(::stat(SegmentFile().c_str(), &st), 0) << "no segment may be created under it";
  EXPECT_TRUE(Open(&tier, true).ok());
  tier.reset();

  if (::geteuid() != 0) return;
  ASSERT_EQ(::chmod(LockFile().c_str(), 0600), 0);
  ASSERT_EQ(::chown(LockFile().c_str(), test::kOtherUser, test::kOtherUser), 0);
  s = Open(&tier);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr(fmt::format("owned by uid {}", test::kOtherUser)));
}

TEST_F(ShmTrust, AllowSharedWritableAcceptsAGroupWritableSegmentMadeFromAGroupDatabase) {
  // A group-shared database (0660, accepted with allow_shared_writable): its segment is 0660.
  ASSERT_EQ(::chmod(db_.c_str(), 0660), 0);
  {
    std::unique_ptr<SharedPlanTier> tier;
    ASSERT_TRUE(Open(&tier, true).ok());
    tier->Publish(4, Key(1), Payload(1));
  }
  struct stat st {};
  ASSERT_EQ(::stat(SegmentFile().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0660u);
  std::unique_ptr<SharedPlanTier> tier;
  ASSERT_TRUE(Open(&tier, true).ok());
  std::vector<SharedPlanTier::Entry> entries;
  ASSERT_TRUE(tier->Lookup(4, &entries).ok());
  EXPECT_EQ(entries.size(), 1u);
  tier.reset();
  EXPECT_EQ(Open(&tier).code(), Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace ember
