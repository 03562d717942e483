// Device facts on every backend (table device_facts, schema 5; Note [Device facts] in
// store/persistent_facts.h): a fact round-trips and a new value replaces the old one, facts are
// scoped by environment and go with it, a damaged row is counted and never returned, what
// either database cannot hold is refused, a read-only repository stores nothing, and two
// processes (PersistentPlans opened one after the other) share a fact through the database.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/codec/row_checksum.h"
#include "store/persistent_plans.h"
#include "store/repository/column_encoding.h"
#include "tests/store/repository_backends.h"

namespace ember {
namespace {

using test::SampleEnvironment;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;
using testing::Optional;

const DeviceFact kFact{.name = "epilogue/Test CPU/f32 bias+relu m<=2^13",
                       .value = "cublaslt 0.0123 0.0150"};

class DeviceFacts : public test::BackendFixture {
 protected:
  LoadedDeviceFacts Load(EnvironmentRowId env) {
    LoadedDeviceFacts loaded;
    const Status s = repo_->LoadDeviceFacts(env, &loaded);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return loaded;
  }
  void Put(EnvironmentRowId env, const DeviceFact& fact) {
    const Status s = repo_->PutDeviceFact(env, fact);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  int64_t Rows() { return std::stoll(Raw("SELECT CAST(count(*) AS TEXT) FROM device_facts")); }
  std::unique_ptr<PersistentPlans> OpenPlans() {
    std::unique_ptr<PersistentPlans> plans;
    const Status s = PersistentPlans::Open(
        {.path = location_, .environment = SampleEnvironment(), .workload = "w"}, &plans);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return plans;
  }
};
EMBER_ON_EVERY_BACKEND(DeviceFacts);

TEST_P(DeviceFacts, AFactRoundTripsAndANewValueReplacesIt) {
  Put(env_, kFact);
  Put(env_, {.name = "another", .value = ""});
  Reopen();
  EXPECT_THAT(Load(env_).facts, ElementsAre(DeviceFact{"another", ""}, kFact));
  EXPECT_EQ(Raw("SELECT CAST(checksum AS TEXT) FROM device_facts WHERE name = 'another'"),
            std::to_string(ToColumn(DeviceFactChecksum("another", ""))));

  const DeviceFact newer{.name = kFact.name, .value = "cublas 0.02 0.01"};
  Put(env_, newer);
  Reopen();
  const LoadedDeviceFacts loaded = Load(env_);
  EXPECT_THAT(loaded.facts, ElementsAre(DeviceFact{"another", ""}, newer));
  EXPECT_EQ(loaded.damaged, 0u);
  EXPECT_EQ(Rows(), 2);
}

TEST_P(DeviceFacts, FactsAreScopedByEnvironmentAndGoWithIt) {
  EnvironmentRowId other = 0;
  ASSERT_TRUE(repo_->EnsureEnvironment(SampleEnvironment("Other GPU"), &other).ok());
  Put(env_, kFact);
  Put(other, {.name = kFact.name, .value = "theirs"});
  EXPECT_THAT(Load(env_).facts, ElementsAre(kFact));
  EXPECT_THAT(Load(other).facts, ElementsAre(DeviceFact{kFact.name, "theirs"}));
  RawExec("DELETE FROM environments WHERE id = " + std::to_string(other));
  EXPECT_EQ(Rows(), 1);
  EXPECT_THAT(Load(env_).facts, ElementsAre(kFact));
}

TEST_P(DeviceFacts, ADamagedRowIsCountedAndNeverReturned) {
  Put(env_, kFact);
  Put(env_, {.name = "intact", .value = "1"});
  RawExec("UPDATE device_facts SET value = 'cublas 9 9' WHERE name <> 'intact'");
  LoadedDeviceFacts loaded = Load(env_);
  EXPECT_THAT(loaded.facts, ElementsAre(DeviceFact{"intact", "1"}));
  EXPECT_EQ(loaded.damaged, 1u);
  // A byte moved from the name into the value does not pass either.
  RawExec("UPDATE device_facts SET name = 'intac', value = 't1' WHERE name = 'intact'");
  loaded = Load(env_);
  EXPECT_THAT(loaded.facts, IsEmpty());
  EXPECT_EQ(loaded.damaged, 2u);
  // A new value of the name replaces the damaged row.
  Put(env_, kFact);
  EXPECT_THAT(Load(env_).facts, ElementsAre(kFact));
}

TEST_P(DeviceFacts, WhatEitherDatabaseCannotHoldIsRefusedAndNothingIsWritten) {
  const std::string longest_name(DeviceFactStore::kMaxNameBytes, 'n');
  const std::string longest_value(DeviceFactStore::kMaxValueBytes, 'v');
  const DeviceFact refused[] = {
      {.name = longest_name + "n", .value = "v"},
      {.name = "long value", .value = longest_value + "v"},
      {.name = "", .value = "v"},
      {.name = "bad utf-8", .value = "\xc3\x28"},
      {.name = std::string("nul\0inside", 10), .value = "v"},
  };
  for (const DeviceFact& fact : refused) {
    const Status s = repo_->PutDeviceFact(env_, fact);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  }
  EXPECT_EQ(Rows(), 0);
  Put(env_, {.name = longest_name, .value = longest_value});
  EXPECT_THAT(Load(env_).facts, ElementsAre(DeviceFact{longest_name, longest_value}));
}

TEST_P(DeviceFacts, AReadOnlyRepositoryReadsFactsAndStoresNone) {
  Put(env_, kFact);
  std::unique_ptr<PlanRepository> reader = Open(/*read_only=*/true);
  ASSERT_NE(reader, nullptr);
  LoadedDeviceFacts loaded;
  ASSERT_TRUE(reader->LoadDeviceFacts(env_, &loaded).ok());
  EXPECT_THAT(loaded.facts, ElementsAre(kFact));
  const Status s = reader->PutDeviceFact(env_, {.name = "new", .value = "v"});
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
  EXPECT_THAT(s.message(), HasSubstr("refusing storing a device fact"));
  EXPECT_EQ(Rows(), 1);
}

// What one process remembered, the next process (or host) finds, through the engine's path:
// PersistentPlans, its writer and its first Find.
TEST_P(DeviceFacts, ProcessesShareAFactThroughTheDatabase) {
  {
    auto plans = OpenPlans();
    ASSERT_NE(plans, nullptr);
    DeviceFactStore* facts = plans->AttachFacts();
    ASSERT_NE(facts, nullptr);
    EXPECT_EQ(facts->Find(kFact.name), std::nullopt);
    facts->Remember(kFact.name, kFact.value);
    plans->Close();  // the writer drains at exit
  }
  EXPECT_EQ(Rows(), 1);
  auto plans = OpenPlans();
  ASSERT_NE(plans, nullptr);
  EXPECT_THAT(plans->AttachFacts()->Find(kFact.name), Optional(kFact.value));
  plans->Close();
}

}  // namespace
}  // namespace ember
