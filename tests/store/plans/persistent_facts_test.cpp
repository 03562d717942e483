// Device facts through PersistentPlans as the engine drives it (Note [Device facts],
// store/persistent_facts.h), on a real SQLite file: what one process remembers the next one
// finds, an environment's facts are read in one query and a missing name at most once more, a
// damaged row is never returned, a read-only database keeps new facts in memory, what does not
// fit is not stored, siblings share facts through the segment, and Remember never waits for a
// locked database.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "store/persistent_plans.h"
#include "store/shm/shared_segment.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::RawDb;
using sqlite_test::TempDir;
using test::ForkChild;
using test::SampleEnvironment;
using test::WaitChild;
using testing::Optional;

constexpr char kName[] = "epilogue/Test CPU/f32 bias+relu m<=2^13";
constexpr char kValue[] = "cublaslt 0.0123 0.0150";

class PersistentFactsTest : public testing::Test {
 protected:
  void TearDown() override {
    (void)SharedSegment::RemoveAll(path_);  // segments outlive the processes
  }

  std::unique_ptr<PersistentPlans> Open(bool shm = false,
                                        EnvironmentFingerprint env = SampleEnvironment()) {
    std::unique_ptr<PersistentPlans> plans;
    const Status s = PersistentPlans::Open({.path = path_,
                                            .environment = std::move(env),
                                            .workload = "w",
                                            .shm = shm,
                                            .shm_bytes = 1 << 20},
                                           &plans);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return plans;
  }

  // Facts as another process leaves them: remembered, then the process closes its database.
  void RememberAndClose(std::initializer_list<std::pair<std::string, std::string>> facts) {
    auto plans = Open();
    ASSERT_NE(plans, nullptr);
    for (const auto& [name, value] : facts) plans->AttachFacts()->Remember(name, value);
    plans->Close();
  }

  static PersistentFacts& FactsOf(PersistentPlans& plans) {
    return *static_cast<PersistentFacts*>(plans.AttachFacts());
  }

  TempDir dir_;
  const std::string path_ = dir_.File("plans.db");
};

TEST_F(PersistentFactsTest, AFactAnotherProcessRememberedIsFoundByTheNext) {
  const pid_t child = ForkChild([&] {
    std::unique_ptr<PersistentPlans> plans;
    if (!PersistentPlans::Open({.path = path_, .environment = SampleEnvironment(), .workload = "w"},
                               &plans)
             .ok()) {
      return 1;
    }
    plans->AttachFacts()->Remember(kName, kValue);
    plans->Close();
    return 0;
  });
  ASSERT_EQ(WaitChild(child), 0);
  {
    RawDb raw(path_);
    EXPECT_EQ(raw.Int("SELECT count(*) FROM device_facts"), 1);
    EXPECT_EQ(raw.Text("SELECT value FROM device_facts"), kValue);
  }
  auto plans = Open();
  EXPECT_THAT(plans->AttachFacts()->Find(kName), Optional(std::string(kValue)));
  EXPECT_EQ(FactsOf(*plans).reads(), 1u);
  // Another environment (another device) never sees it.
  auto other = Open(false, SampleEnvironment("Other CPU"));
  EXPECT_EQ(other->AttachFacts()->Find(kName), std::nullopt);
}

TEST_F(PersistentFactsTest, OneReadForTheEnvironmentAndAtMostOneMorePerMissingName) {
  RememberAndClose({{"a", "1"}, {"b", "2"}, {"c", "3"}});
  auto plans = Open();
  DeviceFactStore& facts = *plans->AttachFacts();
  EXPECT_EQ(FactsOf(*plans).reads(), 0u);  // nothing read before the first Find
  EXPECT_THAT(facts.Find("a"), Optional(std::string("1")));
  EXPECT_THAT(facts.Find("b"), Optional(std::string("2")));
  EXPECT_THAT(facts.Find("c"), Optional(std::string("3")));
  EXPECT_EQ(FactsOf(*plans).reads(), 1u);

  // A name nobody measured: one read more, then never again, however often it is asked.
  EXPECT_EQ(facts.Find("d"), std::nullopt);
  EXPECT_EQ(FactsOf(*plans).reads(), 2u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(facts.Find("d"), std::nullopt);
  EXPECT_EQ(FactsOf(*plans).reads(), 2u);

  // What a sibling stored after the first read arrives with that one read more.
  RememberAndClose({{"e", "5"}});
  EXPECT_THAT(facts.Find("e"), Optional(std::string("5")));
  EXPECT_EQ(FactsOf(*plans).reads(), 3u);
  // Memory wins over a value stored later by another process.
  RememberAndClose({{"a", "changed"}});
  EXPECT_THAT(facts.Find("a"), Optional(std::string("1")));
}

TEST_F(PersistentFactsTest, ANewValueReplacesTheOldOneAndAnEqualOneWritesNothing) {
  RememberAndClose({{kName, "cublas 1 2"}});
  int64_t updated = 0;
  {
    auto plans = Open();
    DeviceFactStore& facts = *plans->AttachFacts();
    facts.Remember(kName, kValue);
    plans->Flush();
    updated = RawDb(path_).Int("SELECT updated FROM device_facts");
    facts.Remember(kName, kValue);  // the same value: no write
    plans->Close();
  }
  RawDb raw(path_);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM device_facts"), 1);
  EXPECT_EQ(raw.Text("SELECT value FROM device_facts"), kValue);
  EXPECT_EQ(raw.Int("SELECT updated FROM device_facts"), updated);
}

TEST_F(PersistentFactsTest, ADamagedRowIsNeverReturnedAndTheNextValueReplacesIt) {
  RememberAndClose({{kName, kValue}, {"intact", "yes"}});
  RawDb(path_).Exec("UPDATE device_facts SET value = 'cublas 0 0' WHERE name = '" +
                    std::string(kName) + "'");
  {
    auto plans = Open();
    DeviceFactStore& facts = *plans->AttachFacts();
    EXPECT_EQ(facts.Find(kName), std::nullopt);
    EXPECT_EQ(FactsOf(*plans).damaged(), 1u);
    EXPECT_THAT(facts.Find("intact"), Optional(std::string("yes")));
    facts.Remember(kName, "cublaslt 0.5 0.6");  // measured again
    plans->Close();
  }
  auto plans = Open();
  EXPECT_THAT(plans->AttachFacts()->Find(kName), Optional(std::string("cublaslt 0.5 0.6")));
  EXPECT_EQ(FactsOf(*plans).damaged(), 0u);
}

TEST_F(PersistentFactsTest, AReadOnlyDatabaseServesItsFactsAndKeepsNewOnesInMemory) {
  RememberAndClose({{kName, kValue}});
  {
    RawDb raw(path_);  // written by a newer ember: opened read-only
    raw.Exec("INSERT INTO schema_migrations VALUES (99, 'from_the_future', 0)");
  }
  {
    auto plans = Open();
    DeviceFactStore& facts = *plans->AttachFacts();
    EXPECT_THAT(facts.Find(kName), Optional(std::string(kValue)));
    facts.Remember("new", "in memory");
    EXPECT_THAT(facts.Find("new"), Optional(std::string("in memory")));
    plans->Close();
  }
  RawDb raw(path_);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM device_facts"), 1);
}

TEST_F(PersistentFactsTest, WhatDoesNotFitIsNotStored) {
  const std::string longest_name(DeviceFactStore::kMaxNameBytes, 'n');
  const std::string longest_value(DeviceFactStore::kMaxValueBytes, 'v');
  {
    auto plans = Open();
    DeviceFactStore& facts = *plans->AttachFacts();
    facts.Remember(longest_name + "n", "v");
    facts.Remember("long value", longest_value + "v");
    facts.Remember("not utf-8", "\xff\xfe");
    facts.Remember(std::string("nul\0inside", 10), "v");
    facts.Remember("", "v");
    facts.Remember(longest_name, longest_value);
    EXPECT_EQ(facts.Find(longest_name + "n"), std::nullopt);
    EXPECT_EQ(facts.Find("long value"), std::nullopt);
    EXPECT_EQ(facts.Find("not utf-8"), std::nullopt);
    plans->Close();
  }
  RawDb raw(path_);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM device_facts"), 1);
  auto plans = Open();
  EXPECT_THAT(plans->AttachFacts()->Find(longest_name), Optional(longest_value));
}

TEST_F(PersistentFactsTest, SiblingsShareFactsThroughTheSegmentWithoutADatabaseRead) {
  auto first = Open(/*shm=*/true);
  auto second = Open(/*shm=*/true);
  ASSERT_NE(first->shared_tier(), nullptr);
  EXPECT_EQ(second->AttachFacts()->Find(kName), std::nullopt);  // the first read: nothing yet
  EXPECT_EQ(FactsOf(*second).reads(), 1u);
  first->AttachFacts()->Remember(kName, kValue);
  // In the segment at once, before the write-behind commits it; no second database read.
  EXPECT_THAT(second->AttachFacts()->Find(kName), Optional(std::string(kValue)));
  EXPECT_EQ(FactsOf(*second).reads(), 1u);
  first->Close();
  second->Close();
}

TEST_F(PersistentFactsTest, RememberNeverWaitsForALockedDatabase) {
  auto plans = Open();
  DeviceFactStore& facts = *plans->AttachFacts();
  EXPECT_EQ(facts.Find(kName), std::nullopt);
  {
    RawDb raw(path_);
    raw.Exec("BEGIN IMMEDIATE");  // another program holds the write lock
    const auto start = std::chrono::steady_clock::now();
    facts.Remember(kName, kValue);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(100));
    EXPECT_THAT(facts.Find(kName), Optional(std::string(kValue)));
    raw.Exec("COMMIT");
  }
  plans->Flush();
  EXPECT_EQ(RawDb(path_).Text("SELECT value FROM device_facts"), kValue);
  plans->Close();
}

}  // namespace
}  // namespace ember
