// `ember-plans gc` next to live writers (issue 40, item 4): a writer that appends a trigger to
// a plan gc removed re-publishes the plan instead of failing a foreign key and storing nothing
// for the rest of its run; a removed plan's id is never handed to another plan, so a trigger
// never lands on the wrong plan; a repaired quarantined row keeps only triggers that validate;
// and one failed batch never stops the batches after it.
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/core/log.h"
#include "store/admin/plan_gc.h"
#include "store/admin/plan_verification.h"
#include "store/repository/plan_row_check.h"
#include "store/repository/plan_writer.h"
#include "tests/store/real_plans.h"
#include "tests/store/repository_backends.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::Always;
using sqlite_test::OnOps;
using sqlite_test::OnSync;
using test::OneOpPlan;
using testing::Each;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;
using testing::Not;
using testing::UnorderedElementsAre;

const std::vector<OpKind> kKinds = {OpKind::kExp, OpKind::kTanh, OpKind::kSqrt, OpKind::kSin,
                                    OpKind::kNeg, OpKind::kAbs,  OpKind::kLog};

class GcBesideWriters : public test::WorkloadBackendFixture {
 protected:
  std::unique_ptr<PlanWriter> Writer() {
    return std::make_unique<PlanWriter>(Open(), env_, workload_);
  }
  // Evicts every plan (no live segment protects any here); how many went.
  size_t EvictAll(PlanRepository& repo) {
    GcReport report;
    const Status s = CollectGarbage(repo, {.max_bytes = 0}, &report);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return report.evicted.size();
  }
  // The stored plan of `kind`'s key with its triggers; nullopt when there is none.
  std::optional<StoredPlan> Stored(OpKind kind) {
    const NewPlan plan = OneOpPlan(kind);
    LoadedPlans loaded;
    const Status s = repo_->LoadPlansByFirstOp(env_, plan.first_op_hash, &loaded);
    EXPECT_TRUE(s.ok()) << s.ToString();
    for (StoredPlan& stored : loaded.plans) {
      if (stored.plan_key == plan.plan_key) return std::move(stored);
    }
    return std::nullopt;
  }
  void ExpectHealthy() {
    VerificationReport report;
    ASSERT_TRUE(VerifyPlanDatabase(repo_->sql(), &report).ok());
    for (const VerificationProblem& p : report.problems) ADD_FAILURE() << p.where << ": " << p.what;
    EXPECT_EQ(report.quarantined, 0);
  }
};
EMBER_ON_EVERY_BACKEND(GcBesideWriters);

TEST_P(GcBesideWriters, ATriggerForAPlanGcRemovedRepublishesThePlan) {
  ScopedLogCapture capture(LogLevel::kDisabled);
  std::unique_ptr<PlanWriter> writer = Writer();
  writer->Publish(0, {OneOpPlan(OpKind::kExp), {OnSync()}, {}});
  writer->Hit(0);
  writer->Flush();
  ASSERT_EQ(EvictAll(*repo_), 1u);

  writer->AppendTrigger(0, Always());
  writer->Hit(0);
  writer->Publish(1, {OneOpPlan(OpKind::kLog), {OnSync()}, {}});
  writer->Flush();

  EXPECT_FALSE(writer->failed());
  EXPECT_THAT(capture.messages(), Each(Not(HasSubstr("not stored"))));
  const std::optional<StoredPlan> exp = Stored(OpKind::kExp);
  ASSERT_TRUE(exp.has_value()) << "the removed plan was not published again";
  EXPECT_THAT(exp->triggers, ElementsAre(OnSync(), Always()));
  EXPECT_TRUE(Stored(OpKind::kLog).has_value());
  ExpectHealthy();
}

// SQLite handed a removed plan's rowid to the next plan inserted (plans.id had no
// AUTOINCREMENT), so a writer still holding that id gave another plan its trigger.
TEST_P(GcBesideWriters, ARemovedPlansIdIsNeverReusedSoItsTriggerNeverLandsElsewhere) {
  ScopedLogCapture capture(LogLevel::kDisabled);
  std::unique_ptr<PlanWriter> writer = Writer();
  writer->Publish(0, {OneOpPlan(OpKind::kExp), {OnSync()}, {}});
  writer->Flush();
  const PlanRowId removed = Stored(OpKind::kExp)->id;
  ASSERT_EQ(EvictAll(*repo_), 1u);

  InsertResult other;
  ASSERT_TRUE(repo_->InsertPlan(env_, OneOpPlan(OpKind::kLog), &other).ok());
  EXPECT_NE(other.plan_id, removed);
  writer->AppendTrigger(0, Always());
  writer->Flush();

  EXPECT_FALSE(writer->failed());
  ASSERT_TRUE(Stored(OpKind::kLog).has_value());
  EXPECT_THAT(Stored(OpKind::kLog)->triggers, IsEmpty());
  ASSERT_TRUE(Stored(OpKind::kExp).has_value());
  EXPECT_THAT(Stored(OpKind::kExp)->triggers, ElementsAre(OnSync(), Always()));
  ExpectHealthy();
}

// A plan loaded from the database (bound to its row, not published here) that gc removes is
// stored again from the row the writer read, with the trigger found since.
TEST_P(GcBesideWriters, ABoundPlanGcRemovedIsStoredAgainWithItsNewTrigger) {
  ScopedLogCapture capture(LogLevel::kDisabled);
  InsertResult inserted;
  ASSERT_TRUE(repo_->InsertPlan(env_, OneOpPlan(OpKind::kSqrt), &inserted).ok());
  ASSERT_TRUE(repo_->AppendTriggers(inserted.plan_id, std::vector<TriggerRow>{OnSync()}).ok());
  std::unique_ptr<PlanWriter> writer = Writer();
  writer->Bind(0, inserted.plan_id);
  writer->AppendTrigger(0, Always());
  writer->Flush();
  ASSERT_EQ(EvictAll(*repo_), 1u);

  writer->AppendTrigger(0, OnOps("never-decoded-here"));
  writer->Flush();
  EXPECT_FALSE(writer->failed());
  const std::optional<StoredPlan> sqrt = Stored(OpKind::kSqrt);
  ASSERT_TRUE(sqrt.has_value());
  EXPECT_THAT(sqrt->triggers, ElementsAre(OnSync(), Always(), OnOps("never-decoded-here")));
}

// A quarantined row repaired by a fresh publication kept its trigger rows, a bad one included,
// so every later run quarantined it again.
TEST_P(GcBesideWriters, RepairingAQuarantinedPlanDropsTriggerRowsThatDoNotValidate) {
  const NewPlan plan = OneOpPlan(OpKind::kExp);
  InsertResult inserted;
  ASSERT_TRUE(repo_->InsertPlan(env_, plan, &inserted).ok());
  const std::vector<TriggerRow> stored = {OnSync(), OnOps("not an op list")};
  ASSERT_TRUE(repo_->AppendTriggers(inserted.plan_id, stored).ok());
  ASSERT_TRUE(repo_->Quarantine(inserted.plan_id, "trigger 1 does not decode").ok());

  PublishBatch batch{.environment_id = env_};
  batch.plans.push_back({plan, {Always()}, {}});
  PublishResult result;
  ASSERT_TRUE(repo_->Publish(batch, &result).ok());
  ASSERT_EQ(result.plans[0].outcome, InsertOutcome::kReplacedQuarantined);

  const std::optional<StoredPlan> repaired = Stored(OpKind::kExp);
  ASSERT_TRUE(repaired.has_value());
  EXPECT_THAT(repaired->triggers, UnorderedElementsAre(OnSync(), Always()));
  ExpectHealthy();
}

TEST_P(GcBesideWriters, GcInALoopBesideFourWritersLeavesEveryPlanFindable) {
  ScopedLogCapture capture(LogLevel::kDisabled);
  constexpr int kWriters = 4;
  constexpr int kRounds = 12;
  std::atomic<bool> writing{true};
  std::atomic<size_t> evicted{0};
  std::thread gc([&] {
    std::unique_ptr<PlanRepository> repo = Open();
    while (writing.load()) {
      evicted += EvictAll(*repo);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  // Writer w finds the plans of kinds w .. w+3 (each kind is found by several writers): it
  // publishes them, hits them, and appends a trigger to each every round. Every writer runs
  // kRounds rounds and goes on until gc has removed a plan: on a loaded machine gc's passes
  // could all fall before the first publication or after the last round, and then nothing here
  // would run beside gc. The deadline is for a gc that never removes anything, which fails below.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  auto more = [&](int round) {
    return round < kRounds || (evicted.load() == 0 && std::chrono::steady_clock::now() < give_up);
  };
  std::vector<std::unique_ptr<PlanWriter>> writers;
  for (int w = 0; w < kWriters; ++w) writers.push_back(Writer());
  auto kind_of = [](int w, int j) { return kKinds[(w + j) % kKinds.size()]; };
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      PlanWriter& writer = *writers[w];
      for (int j = 0; j < 4; ++j) writer.Publish(j, {OneOpPlan(kind_of(w, j)), {OnSync()}, {}});
      for (int round = 0; more(round); ++round) {
        for (int j = 0; j < 4; ++j) {
          writer.Hit(j);
          writer.AppendTrigger(j, round % 2 == 0 ? Always() : OnSync());
        }
        writer.Exploration();
        writer.Flush();
        std::this_thread::sleep_for(std::chrono::milliseconds(3));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  writing = false;
  gc.join();
  EXPECT_GT(evicted.load(), 0u) << "gc never removed a plan beside the writers";

  // Once gc is done, one more trigger each: every plan a writer knows is stored (again).
  for (int w = 0; w < kWriters; ++w) {
    for (int j = 0; j < 4; ++j) writers[w]->AppendTrigger(j, Always());
    writers[w]->Flush();
  }
  for (int w = 0; w < kWriters; ++w) EXPECT_FALSE(writers[w]->failed()) << "writer " << w;
  EXPECT_THAT(capture.messages(), Each(Not(HasSubstr("not stored"))));
  for (const OpKind kind : kKinds) {
    const std::optional<StoredPlan> stored = Stored(kind);
    ASSERT_TRUE(stored.has_value()) << static_cast<int>(kind);
    EXPECT_THAT(stored->triggers, UnorderedElementsAre(OnSync(), Always()))
        << static_cast<int>(kind);
    ExecutionPlan decoded;
    EXPECT_TRUE(
        DecodePlanParts(stored->ops_blob, stored->plan_blob, stored->triggers, &decoded).ok());
  }
  ExpectHealthy();
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

using sqlite_test::RawDb;
using sqlite_test::SamplePlan;

// A batch that fails for a reason of its own (here a constraint another program added, which
// it then drops) loses that batch only: the next one is stored.
TEST(PlanWriterFailures, AFailedBatchDoesNotStopTheBatchesAfterIt) {
  sqlite_test::TempDir dir;
  const std::string path = dir.File("plans.db");
  EnvironmentRowId env = 0;
  WorkloadRowId workload = 0;
  {
    auto repo = test::OpenRepository(path);
    ASSERT_TRUE(repo->EnsureEnvironment(test::SampleEnvironment(), &env).ok());
    WorkloadRow row;
    ASSERT_TRUE(repo->GetOrCreateWorkload(env, "serve", &row).ok());
    workload = row.id;
  }
  RawDb raw(path);
  raw.Exec("CREATE TABLE refuse (x INTEGER)");
  raw.Exec("INSERT INTO refuse VALUES (1)");
  raw.Exec(
      "CREATE TRIGGER refuse_plans BEFORE INSERT ON plans WHEN EXISTS (SELECT 1 FROM refuse) "
      "BEGIN SELECT RAISE(ABORT, 'refused for a test'); END");
  ScopedLogCapture capture(LogLevel::kDisabled);
  PlanWriter writer(test::OpenRepository(path), env, workload);
  writer.Publish(0, {SamplePlan(1), {OnSync()}, {}});
  writer.Flush();
  EXPECT_EQ(writer.plans_published(), 0u);
  raw.Exec("DELETE FROM refuse");

  writer.Publish(1, {SamplePlan(2), {OnSync()}, {}});
  writer.Flush();
  EXPECT_FALSE(writer.failed());
  EXPECT_EQ(writer.plans_published(), 1u);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM plans"), 1);
  EXPECT_THAT(capture.messages(), ElementsAre(AllOf(HasSubstr("refused for a test"),
                                                    Not(HasSubstr("from now on are not stored")))));
}

// Migration 0004 rebuilt `plans` with AUTOINCREMENT: its rows, their children and the foreign
// keys to it are as before.
TEST(SqlitePlanIds, PlansIdsAreNeverReusedAndChildrenStillReferenceThePlans) {
  sqlite_test::TempDir dir;
  const std::string path = dir.File("plans.db");
  auto repo = test::OpenRepository(path);
  RawDb raw(path);
  EXPECT_THAT(raw.Text("SELECT sql FROM sqlite_master WHERE name = 'plans'"),
              HasSubstr("AUTOINCREMENT"));
  EXPECT_EQ(raw.Text("SELECT \"table\" FROM pragma_foreign_key_list('triggers')"), "plans");
  EXPECT_EQ(raw.Text("SELECT \"table\" FROM pragma_foreign_key_list('plan_usage') "
                     "WHERE \"from\" = 'plan_id'"),
            "plans");
}

}  // namespace
}  // namespace ember
