// The shared-memory tier in one process: publication and lookup, generations, limits, damaged
// and stale segments (Note [Shared plan segment]).
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "store/shm/shared_segment_info.h"
#include "store/shm/shared_segment_layout.h"
#include "tests/store/shm_test_util.h"

namespace ember {
namespace {

using test::Key;
using test::Payload;

class ShmTier : public test::ShmFixture {};

std::vector<uint64_t> Ids(const std::vector<SharedPlanTier::Entry>& entries) {
  std::vector<uint64_t> ids;
  for (const auto& e : entries) {
    uint64_t n = 0;
    std::memcpy(&n, e.encoded_plan.data(), sizeof(n));
    ids.push_back(n);
  }
  return ids;
}

TEST_F(ShmTier, PublishedPlansAreFoundByFirstOpNewestFirst) {
  auto tier = OpenTier();
  const uint64_t g0 = tier->generation();
  ASSERT_EQ(tier->Publish(7, Key(1), Payload(1)), SharedPlanTier::PublishOutcome::kPublished);
  ASSERT_EQ(tier->Publish(7, Key(2), Payload(2)), SharedPlanTier::PublishOutcome::kPublished);
  // Same bucket (7 + 4096), another first op: never returned for 7.
  ASSERT_EQ(tier->Publish(7 + shm::kBucketCount, Key(3), Payload(3)),
            SharedPlanTier::PublishOutcome::kPublished);
  EXPECT_EQ(tier->generation(), g0 + 3);

  std::vector<SharedPlanTier::Entry> entries;
  ASSERT_TRUE(tier->Lookup(7, &entries).ok());
  EXPECT_EQ(Ids(entries), (std::vector<uint64_t>{2, 1}));
  EXPECT_EQ(entries[0].key, Key(2));
  EXPECT_EQ(entries[0].encoded_plan, Payload(2));
  ASSERT_TRUE(tier->Lookup(8, &entries).ok());
  EXPECT_TRUE(entries.empty());
  EXPECT_TRUE(tier->HasEntries(7));
  EXPECT_FALSE(tier->HasEntries(8));
  EXPECT_FALSE(tier->HasEntries(7 + 2 * shm::kBucketCount));
}

TEST_F(ShmTier, OneEntryPerKeyTheNewestAndALaterLookSeesOnlyWhatCameSince) {
  auto tier = OpenTier();
  tier->Publish(5, Key(1), Payload(10));
  tier->Publish(5, Key(2), Payload(20));
  std::vector<SharedPlanTier::Entry> entries;
  uint64_t head = 0;
  ASSERT_TRUE(tier->Lookup(5, &entries, 0, &head).ok());
  EXPECT_EQ(Ids(entries), (std::vector<uint64_t>{20, 10}));
  tier->Publish(5, Key(1), Payload(11));  // a later version of plan 1 (more triggers)
  tier->Publish(5 + shm::kBucketCount, Key(3), Payload(30));  // same bucket, other first op
  ASSERT_TRUE(tier->Lookup(5, &entries).ok());
  EXPECT_EQ(Ids(entries), (std::vector<uint64_t>{11, 20}));
  ASSERT_TRUE(tier->Lookup(5, &entries, head, &head).ok());
  EXPECT_EQ(Ids(entries), (std::vector<uint64_t>{11}));
  ASSERT_TRUE(tier->Lookup(5, &entries, head, &head).ok());
  EXPECT_TRUE(entries.empty());
}

TEST_F(ShmTier, AnotherOpenerOfTheSameDatabaseAndEnvironmentSeesThePlans) {
  auto a = OpenTier();
  a->Publish(9, Key(1), Payload(1));
  // Another spelling of the same path names the same segment.
  std::unique_ptr<SharedPlanTier> b;
  SharedSegmentOptions options = Options();
  options.database_path = dir_.path().string() + "/./plans.db";
  ASSERT_TRUE(SharedPlanTier::Open(options, &b).ok());
  EXPECT_EQ(b->segment().name(), a->segment().name());
  std::vector<SharedPlanTier::Entry> entries;
  ASSERT_TRUE(b->Lookup(9, &entries).ok());
  EXPECT_EQ(Ids(entries), (std::vector<uint64_t>{1}));
  // Another environment has its own segment.
  auto c = OpenTier(uint64_t{4} << 20, "env-b");
  EXPECT_NE(c->segment().name(), a->segment().name());
  ASSERT_TRUE(c->Lookup(9, &entries).ok());
  EXPECT_TRUE(entries.empty());
  std::vector<Hash128> keys;
  ASSERT_TRUE(SharedPlanTier::ListKeys(db_, "env-a", &keys).ok());
  EXPECT_EQ(keys, (std::vector<Hash128>{Key(1)}));
  EXPECT_EQ(SharedPlanTier::ListKeys(db_, "env-none", &keys).code(), Status::Code::kNotFound);
}

TEST_F(ShmTier, TheSegmentTakesTheDatabasesPermissions) {
  auto tier = OpenTier();
  struct stat st {};
  ASSERT_EQ(::stat(SegmentFile().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_uid, ::geteuid());
}

TEST_F(ShmTier, AFullSegmentSkipsPublicationsAndStillServesWhatItHolds) {
  auto tier = OpenTier(shm::kMinSegmentBytes);
  size_t published = 0;
  SharedPlanTier::PublishOutcome outcome;
  while ((outcome = tier->Publish(3, Key(published), Payload(published, 4000))) ==
         SharedPlanTier::PublishOutcome::kPublished) {
    ++published;
  }
  EXPECT_EQ(outcome, SharedPlanTier::PublishOutcome::kFull);
  EXPECT_GT(published, 10u);
  EXPECT_EQ(tier->Publish(3, Key(999), Payload(999, 4000)), SharedPlanTier::PublishOutcome::kFull);
  EXPECT_EQ(tier->segment().header().publish_skipped.load(), 2u);
  std::vector<SharedPlanTier::Entry> entries;
  ASSERT_TRUE(tier->Lookup(3, &entries).ok());
  EXPECT_EQ(entries.size(), published);
  EXPECT_FALSE(tier->broken());
}

TEST_F(ShmTier, AnEntryWhoseChecksumFailsIsSkippedAndCounted) {
  auto tier = OpenTier();
  tier->Publish(4, Key(1), Payload(1));
  tier->Publish(4, Key(2), Payload(2));
  // Damage the payload of the newest entry (the bucket's head).
  const uint64_t head = tier->segment().bucket(4).load();
  tier->segment().at(head)[sizeof(shm::EntryHeader) + 100] ^= 0x40;
  std::vector<SharedPlanTier::Entry> entries;
  ASSERT_TRUE(tier->Lookup(4, &entries).ok());
  EXPECT_EQ(Ids(entries), (std::vector<uint64_t>{1}));
  EXPECT_EQ(tier->corrupt_entries(), 1u);
  EXPECT_FALSE(tier->broken());
}

TEST_F(ShmTier, ALoopingChainMarksTheSegmentBrokenAndTheNextOpenerRecreatesIt) {
  auto tier = OpenTier();
  tier->Publish(6, Key(1), Payload(1));
  const uint64_t head = tier->segment().bucket(6).load();
  reinterpret_cast<shm::EntryHeader*>(tier->segment().at(head))->next = head;
  std::vector<SharedPlanTier::Entry> entries;
  const Status s = tier->Lookup(6, &entries);
  EXPECT_EQ(s.code(), Status::Code::kCorruption) << s.ToString();
  EXPECT_TRUE(tier->broken());
  EXPECT_EQ(tier->Publish(6, Key(2), Payload(2)), SharedPlanTier::PublishOutcome::kBroken);
  bool recreated = false;
  auto fresh = OpenTier(uint64_t{4} << 20, "env-a", &recreated);
  EXPECT_TRUE(recreated);
  EXPECT_FALSE(fresh->broken());
  ASSERT_TRUE(fresh->Lookup(6, &entries).ok());
  EXPECT_TRUE(entries.empty());
}

TEST_F(ShmTier, AChainLeavingTheArenaIsCorruption) {
  auto tier = OpenTier();
  tier->segment().bucket(11).store(tier->segment().size() + 64);
  std::vector<SharedPlanTier::Entry> entries;
  EXPECT_EQ(tier->Lookup(11, &entries).code(), Status::Code::kCorruption);
  EXPECT_TRUE(tier->broken());
}

// Writes `bytes` as the whole segment object of env-a (what an older engine, or garbage, left).
void WriteSegmentFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

TEST_F(ShmTier, ASegmentOfAnotherLayoutVersionIsRecreated) {
  {
    auto tier = OpenTier();
    tier->Publish(1, Key(1), Payload(1));
  }
  // Same magic, older layout: the header as layout 0 would have left it.
  {
    std::fstream f(SegmentFile(), std::ios::in | std::ios::out | std::ios::binary);
    const uint32_t old_version = 0;
    f.seekp(offsetof(shm::SegmentHeader, layout_version));
    f.write(reinterpret_cast<const char*>(&old_version), sizeof(old_version));
  }
  bool recreated = false;
  auto tier = OpenTier(uint64_t{4} << 20, "env-a", &recreated);
  EXPECT_TRUE(recreated);
  EXPECT_EQ(tier->segment().header().layout_version, shm::kSegmentLayoutVersion);
  std::vector<SharedPlanTier::Entry> entries;
  ASSERT_TRUE(tier->Lookup(1, &entries).ok());
  EXPECT_TRUE(entries.empty());
}

TEST_F(ShmTier, GarbageTooSmallAndHalfCreatedSegmentsAreRecreated) {
  std::vector<uint8_t> garbage(1 << 20);
  for (size_t i = 0; i < garbage.size(); ++i)
    garbage[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
  for (const std::vector<uint8_t>& bytes : {garbage, std::vector<uint8_t>(100, 0xff)}) {
    WriteSegmentFile(SegmentFile(), bytes);
    bool recreated = false;
    auto tier = OpenTier(uint64_t{4} << 20, "env-a", &recreated);
    EXPECT_TRUE(recreated);
    EXPECT_FALSE(tier->broken());
    EXPECT_EQ(tier->Publish(1, Key(1), Payload(1)), SharedPlanTier::PublishOutcome::kPublished);
  }
  // A creator that died before marking the header ready.
  { auto tier = OpenTier(); }
  {
    std::fstream f(SegmentFile(), std::ios::in | std::ios::out | std::ios::binary);
    const uint32_t initializing = shm::kInitializing;
    f.seekp(offsetof(shm::SegmentHeader, state));
    f.write(reinterpret_cast<const char*>(&initializing), sizeof(initializing));
  }
  bool recreated = false;
  auto tier = OpenTier(uint64_t{4} << 20, "env-a", &recreated);
  EXPECT_TRUE(recreated);
}

TEST_F(ShmTier, ASegmentOfAnotherSizeIsUsedAsItIs) {
  { auto tier = OpenTier(uint64_t{1} << 20); }
  bool recreated = false;
  auto tier = OpenTier(uint64_t{8} << 20, "env-a", &recreated);
  EXPECT_FALSE(recreated);
  EXPECT_EQ(tier->segment().size(), uint64_t{1} << 20);
}

// EMBER_SHM_BYTES=99999999999999 once left a 91 TB sparse object under the segment's name, and
// every later open failed with "Cannot allocate memory" and kept the tier off. An object larger
// than a segment may be is recreated at the configured size, even with a header that matches.
TEST_F(ShmTier, AnObjectLargerThanASegmentMayBeIsRecreatedAtTheConfiguredSize) {
  {
    auto tier = OpenTier();
    tier->Publish(1, Key(1), Payload(1));
  }
  constexpr uint64_t kHuge = 99999999999999;
  ASSERT_EQ(::truncate(SegmentFile().c_str(), static_cast<off_t>(kHuge)), 0);
  {
    std::fstream f(SegmentFile(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(offsetof(shm::SegmentHeader, total_bytes));
    f.write(reinterpret_cast<const char*>(&kHuge), sizeof(kHuge));
  }
  // `ember-plans shm ls` does not call it ready.
  std::vector<SharedSegmentInfo> infos;
  ASSERT_TRUE(InspectSharedSegments(db_, {"env-a"}, &infos).ok());
  ASSERT_EQ(infos.size(), 1u);
  EXPECT_EQ(infos[0].state, "unusable");
  EXPECT_EQ(infos[0].problem,
            "it is 99999999999999 bytes, more than a segment may have (4294967296)");
  EXPECT_EQ(infos[0].entries, 1u);  // still described

  bool recreated = false;
  auto tier = OpenTier(uint64_t{4} << 20, "env-a", &recreated);
  ASSERT_NE(tier, nullptr);
  EXPECT_TRUE(recreated);
  EXPECT_EQ(tier->segment().size(), uint64_t{4} << 20);
  struct stat st {};
  ASSERT_EQ(::stat(SegmentFile().c_str(), &st), 0);
  EXPECT_EQ(static_cast<uint64_t>(st.st_size), uint64_t{4} << 20);
  std::vector<SharedPlanTier::Entry> entries;
  ASSERT_TRUE(tier->Lookup(1, &entries).ok());
  EXPECT_TRUE(entries.empty());
  EXPECT_EQ(tier->Publish(1, Key(1), Payload(1)), SharedPlanTier::PublishOutcome::kPublished);
}

TEST_F(ShmTier, SizesOutsideTheBoundsAreRefused) {
  std::unique_ptr<SharedPlanTier> tier;
  EXPECT_EQ(SharedPlanTier::Open(Options(1000), &tier).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(SharedPlanTier::Open(Options(shm::kMaxSegmentBytes + 1), &tier).code(),
            Status::Code::kInvalidArgument);
  EXPECT_TRUE(SharedSegment::NamesFor(db_).empty());
}

TEST_F(ShmTier, ClaimsAreThisProcesssUntilReleased) {
  auto tier = OpenTier();
  EXPECT_EQ(tier->Claim(42), SharedPlanTier::ClaimOutcome::kMine);
  EXPECT_EQ(tier->Claim(42), SharedPlanTier::ClaimOutcome::kMine);  // its own claim
  // A forked child is another process: it must wait for the parent's claim.
  const pid_t child = test::ForkCheck([&] {
    std::unique_ptr<SharedPlanTier> t;
    if (!SharedPlanTier::Open(Options(), &t).ok()) return false;
    return t->Claim(42) == SharedPlanTier::ClaimOutcome::kOther &&
           t->Claim(43) == SharedPlanTier::ClaimOutcome::kMine;
  });
  EXPECT_EQ(test::WaitChild(child), 0);
  tier->Release(42);
  const pid_t after = test::ForkCheck([&] {
    std::unique_ptr<SharedPlanTier> t;
    if (!SharedPlanTier::Open(Options(), &t).ok()) return false;
    return t->Claim(42) == SharedPlanTier::ClaimOutcome::kMine;
  });
  EXPECT_EQ(test::WaitChild(after), 0);
}

// A server's segments are named after its URI, not after a path the URI would make relative
// to the working directory: workers of one host started in different directories share one
// segment per server, and the password's value is no part of the name.
TEST(ShmSegmentNames, AServersSegmentDoesNotDependOnTheWorkingDirectoryOrThePassword) {
  const std::string uri = "postgresql://ember:secret@db.example:5432/plans";
  const std::string here = SharedSegment::NameFor(uri, "env-1");
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path("/tmp");
  const std::string elsewhere = SharedSegment::NameFor(uri, "env-1");
  std::filesystem::current_path(before);
  EXPECT_EQ(here, elsewhere);
  EXPECT_EQ(here,
            SharedSegment::NameFor("postgresql://ember:other@db.example:5432/plans", "env-1"));
  EXPECT_NE(here,
            SharedSegment::NameFor("postgresql://ember:secret@db.example:5432/other", "env-1"));
}

}  // namespace
}  // namespace ember
