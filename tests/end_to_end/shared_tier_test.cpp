// The shared-memory tier end to end (docs/PLAN_DATABASE.md, "The shared-memory tier"): real
// worker processes (this binary re-executed, engine_child.h) on one SQLite file and its shared
// segment, the real fusers and CPU backend.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include "store/shm/shared_segment.h"
#include "store/shm/shared_segment_layout.h"
#include "tests/end_to_end/engine_child.h"
#include "tests/store/shm_test_util.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using test::Child;
using test::Collect;
using test::Report;
using test::RunChild;
using test::SpawnChild;

// A database in a fresh directory; its segments are removed with it.
struct SharedDb {
  sqlite_test::TempDir dir;
  const std::string path = dir.path().string() + "/plans.db";
  ~SharedDb() { SharedSegment::RemoveAll(path); }

  std::vector<std::string> Env(const std::string& workload,
                               std::vector<std::string> extra = {}) const {
    extra.push_back("EMBER_PLAN_DB=" + path);
    extra.push_back("EMBER_TEST_WORKLOAD=" + workload);
    extra.push_back("EMBER_SHM=on");
    return extra;
  }
  Report Run(const std::string& workload, std::vector<std::string> extra = {}) const {
    return RunChild(dir.path().string(), Env(workload, std::move(extra)));
  }
  double Query(const std::string& sql) const {
    std::unique_ptr<SqlitePlanRepository> repo = test::OpenRepository(path);
    std::string text;
    EXPECT_TRUE(repo->database().sqlite().QueryText(sql, "querying", &text).ok()) << sql;
    return text.empty() ? 0 : std::stod(text);
  }
  // The one segment of this database (one environment in these tests).
  std::string SegmentFile() const {
    const std::vector<std::string> names = SharedSegment::NamesFor(path);
    EXPECT_EQ(names.size(), 1u);
    return names.empty() ? "" : "/dev/shm/" + names[0];
  }
};

template <typename T>
void Poke(const std::string& file, size_t offset, T value) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(reinterpret_cast<const char*>(&value), sizeof(value));
}

TEST(SharedTier, ASiblingRunsOnPlansFromSharedMemoryWithoutReadingSqlite) {
  SharedDb db;
  const Report a = db.Run("many");
  EXPECT_GT(a.at("explorations"), 0);
  EXPECT_EQ(a.at("plans_loaded_from_shm"), 0);
  const double hits_after_a = db.Query("SELECT SUM(hits) FROM plans");
  const Report b = db.Run("many");
  EXPECT_EQ(b.at("explorations"), 0);
  EXPECT_EQ(b.at("plans_loaded_from_db"), 0);  // every first op was found in the segment
  // Its writer bound the plans to their rows by key: its hits are counted there, and it added
  // no row.
  EXPECT_EQ(db.Query("SELECT SUM(hits) FROM plans"), hits_after_a + b.at("cache_hits"));
  EXPECT_EQ(db.Query("SELECT COUNT(*) FROM plans"), a.at("plans"));
  EXPECT_EQ(b.at("plans_published"), 0);
  EXPECT_EQ(b.at("plans_loaded_from_shm"), a.at("plans"));
  EXPECT_GT(b.at("cache_hits"), 0);
  EXPECT_EQ(b.at("cache_hits_from_shm"), b.at("cache_hits"));
  EXPECT_EQ(b.at("checksum"), a.at("checksum"));
  EXPECT_EQ(b.at("fused_executions"), a.at("fused_executions"));
  // The segment is the database's: 0600 like the file.
  struct stat st {};
  ASSERT_EQ(::stat(db.SegmentFile().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(SharedTier, WithTheTierOffPlansComeFromSqlite) {
  SharedDb db;
  const Report a = db.Run("many", {"EMBER_SHM=off"});
  const Report b = db.Run("many", {"EMBER_SHM=off"});
  EXPECT_EQ(b.at("plans_loaded_from_shm"), 0);
  EXPECT_EQ(b.at("plans_loaded_from_db"), a.at("plans"));
  EXPECT_TRUE(SharedSegment::NamesFor(db.path).empty());
}

TEST(SharedTier, WorkersStartingTogetherExploreEachSegmentAboutOnce) {
  SharedDb db;
  SharedDb alone;
  const Report single = alone.Run("many");
  constexpr int kWorkers = 8;
  std::vector<Child> children;
  for (int i = 0; i < kWorkers; ++i) {
    children.push_back(SpawnChild(db.dir.path().string(), db.Env("many")));
  }
  double explorations = 0, from_shm = 0;
  for (const Child& child : children) {
    const Report r = Collect(child);
    EXPECT_EQ(r.at("checksum"), single.at("checksum"));
    explorations += r.at("explorations");
    from_shm += r.at("plans_loaded_from_shm");
  }
  // Without the tier each worker explores every segment. With it, claims make the others wait
  // for the finder's plan; a lost race costs one more exploration, never a wrong result.
  EXPECT_GT(from_shm, 0);
  EXPECT_LT(explorations, kWorkers * single.at("explorations") / 2);
  std::unique_ptr<SqlitePlanRepository> repo = test::OpenRepository(db.path);
  ASSERT_NE(repo, nullptr);
  std::string plans, keys;
  ASSERT_TRUE(repo->database().sqlite().QueryText("SELECT COUNT(*) FROM plans", "", &plans).ok());
  ASSERT_TRUE(repo->database()
                  .sqlite()
                  .QueryText("SELECT COUNT(DISTINCT plan_key) FROM plans", "", &keys)
                  .ok());
  EXPECT_EQ(plans, keys);
  EXPECT_EQ(std::stod(plans), single.at("plans"));
}

TEST(SharedTier, AFullSegmentIsSkippedAndSqliteStillSharesThePlans) {
  SharedDb db;
  db.Run("shapes");  // creates the segment
  // Fill it: the allocator's top at the end.
  Poke<uint64_t>(db.SegmentFile(), offsetof(shm::SegmentHeader, top), uint64_t{64} << 20);
  const Report b = db.Run("many");
  EXPECT_GT(b.at("explorations"), 0);
  EXPECT_GT(b.at("plans_published"), 0);
  EXPECT_EQ(b.at("shm_publish_skipped"), b.at("plans_published"));
  // The segment still knows the first ops (the "shapes" run's plans start like "many"'s), but
  // it is incomplete now: the next worker reads SQLite as well and explores nothing.
  const Report c = db.Run("many");
  EXPECT_EQ(c.at("explorations"), 0);
  EXPECT_GT(c.at("plans_loaded_from_db"), 0);
  EXPECT_EQ(c.at("plans_loaded_from_db") + c.at("plans_loaded_from_shm"), b.at("plans"));
  EXPECT_EQ(c.at("checksum"), b.at("checksum"));
}

TEST(SharedTier, InvalidatingMakesWorkersStartAFreshSegmentFromSqlite) {
  SharedDb db;
  const Report a = db.Run("many");
  size_t marked = 0;
  ASSERT_TRUE(SharedSegment::InvalidateAll(db.path, &marked).ok());
  EXPECT_EQ(marked, 1u);
  const Report b = db.Run("many");
  EXPECT_EQ(b.at("explorations"), 0);
  EXPECT_EQ(b.at("plans_loaded_from_db"), a.at("plans"));
  EXPECT_EQ(b.at("plans_loaded_from_shm"), 0);
}

TEST(SharedTier, AStaleOrDamagedSegmentIsRecreatedAndTheWorkersCarryOn) {
  SharedDb db;
  const Report a = db.Run("many");
  const std::string file = db.SegmentFile();
  // An older layout's segment.
  Poke<uint32_t>(file, offsetof(shm::SegmentHeader, layout_version), 0);
  const Report b = db.Run("many");
  EXPECT_EQ(b.at("explorations"), 0);
  EXPECT_EQ(b.at("plans_loaded_from_db"), a.at("plans"));  // the new segment was empty
  EXPECT_EQ(b.at("checksum"), a.at("checksum"));
  // b put what it read from SQLite into the new segment.
  const Report c = db.Run("many");
  EXPECT_EQ(c.at("plans_loaded_from_shm"), a.at("plans"));
  // Garbage over every bucket head: chains that leave the arena.
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(shm::kBucketsOffset);
    const std::string garbage(shm::kBucketCount * 8, '\x5a');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  const Report d = db.Run("many");
  EXPECT_EQ(d.at("explorations"), 0);
  EXPECT_EQ(d.at("checksum"), a.at("checksum"));
  EXPECT_EQ(d.at("plans_loaded_from_db") + d.at("plans_loaded_from_shm"), a.at("plans"));
}

// Issue 13 §2: a second user who could write a 0666 segment changed one byte of a plan in it and
// recomputed the entry's checksum, and the next run computed wrong results. Now the next run
// refuses the segment (Note [Shared segment trust]) and takes every plan from SQLite.
TEST(SharedTier, ASegmentOthersCouldWriteIsRefusedAndTheRunReadsSqlite) {
  SharedDb db;
  const Report a = db.Run("many");
  const std::string file = db.SegmentFile();
  ASSERT_EQ(::chmod(file.c_str(), 0666), 0);
  int forged = test::RunAsOtherUser([&] { return test::ForgeEntry(file); });
  // Without a second user, a writer of this user: the mode alone decides.
  if (forged == test::kCannotSwitchUser) {
    forged = test::WaitChild(test::ForkCheck([&] { return test::ForgeEntry(file); }));
  }
  ASSERT_EQ(forged, 0);
  const Report b = db.Run("many");
  EXPECT_EQ(b.at("plans_loaded_from_shm"), 0);
  EXPECT_EQ(b.at("plans_loaded_from_db"), a.at("plans"));
  EXPECT_EQ(b.at("explorations"), 0);
  EXPECT_EQ(b.at("checksum"), a.at("checksum"));
  EXPECT_EQ(b.at("fused_executions"), a.at("fused_executions"));
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666u) << "a refused segment is left as it is";
}

TEST(SharedTier, AWorkerKilledAtAnyInstantNeverBlocksItsSiblings) {
  for (int i = 0; i < 8; ++i) {
    SharedDb db;
    const Child victim = SpawnChild(db.dir.path().string(), db.Env("many"));
    const Child sibling = SpawnChild(db.dir.path().string(), db.Env("many"));
    usleep(static_cast<useconds_t>(4000 * i));
    const auto start = std::chrono::steady_clock::now();
    test::KillChild(victim.pid);
    const Report r = Collect(sibling);
    // The sibling may have waited on the victim's claim: at most one claim wait (1 s by
    // default) beyond its own run, which takes well under a second here.
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
    SharedDb reference;
    EXPECT_EQ(r.at("checksum"), reference.Run("many", {"EMBER_PLAN_DB=off"}).at("checksum"));
    // And the next worker finds a usable segment and database.
    const Report next = db.Run("many");
    EXPECT_EQ(next.at("checksum"), r.at("checksum"));
    EXPECT_EQ(next.at("explorations"), 0);
  }
}

}  // namespace
}  // namespace ember
