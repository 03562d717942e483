// The plan repository's rules on every backend (store/repository/plan_repository.h): load by
// first op, "existing plan wins", collisions, quarantine and repair, trigger order and dedup,
// batched publication in one transaction, hits, workloads and their budget, kernels, damaged
// rows. The SQLite-only behaviours (files, WAL, disk full) stay in sqlite_*_test.cpp.
#include <csignal>

#include <fmt/format.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/codec/row_checksum.h"
#include "tests/common/process.h"
#include "tests/store/repository_backends.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::Always;
using sqlite_test::OnOps;
using sqlite_test::OnSync;
using sqlite_test::SampleKernel;
using sqlite_test::SamplePlan;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;
using testing::Not;
using testing::SizeIs;

class RepositorySemantics : public test::BackendFixture {
 protected:
  InsertResult Insert(const NewPlan& plan) {
    InsertResult result;
    const Status s = repo_->InsertPlan(env_, plan, &result);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return result;
  }
  LoadedPlans Load(uint64_t first_op = 7) {
    LoadedPlans loaded;
    const Status s = repo_->LoadPlansByFirstOp(env_, first_op, &loaded);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return loaded;
  }
  std::vector<TriggerRow> TriggersOf(PlanRowId id) {
    for (const StoredPlan& plan : Load().plans) {
      if (plan.id == id) return plan.triggers;
    }
    ADD_FAILURE() << "plan " << id << " not loaded";
    return {};
  }
  int64_t Count(const std::string& table) {
    return std::stoll(Raw("SELECT CAST(count(*) AS TEXT) FROM " + table));
  }
};
EMBER_ON_EVERY_BACKEND(RepositorySemantics);

TEST_P(RepositorySemantics, InsertedPlanLoadsByItsFirstOp) {
  const NewPlan plan = SamplePlan(3);
  const InsertResult result = Insert(plan);
  EXPECT_EQ(result.outcome, InsertOutcome::kInserted);
  Insert(SamplePlan(4, /*first_op=*/8));
  const LoadedPlans loaded = Load(7);
  ASSERT_THAT(loaded.plans, SizeIs(1));
  const StoredPlan& stored = loaded.plans[0];
  EXPECT_EQ(stored.id, result.plan_id);
  EXPECT_EQ(stored.first_op_hash, 7u);
  EXPECT_EQ(stored.plan_key, plan.plan_key);
  EXPECT_EQ(stored.ops_blob, plan.ops_blob);
  EXPECT_EQ(stored.plan_blob, plan.plan_blob);
  EXPECT_EQ(stored.checksum, PlanChecksum(plan.ops_blob, plan.plan_blob));
  EXPECT_EQ(stored.num_ops, plan.num_ops);
  EXPECT_EQ(stored.origin, "local");
  EXPECT_THAT(stored.triggers, IsEmpty());
  EXPECT_THAT(Load(9).plans, IsEmpty());
  EXPECT_EQ(Raw("SELECT CAST(ops_bytes AS TEXT) || ',' || CAST(plan_bytes AS TEXT) || ',' || "
                "status || ',' || CAST(hits AS TEXT) FROM plans"),
            "5,6,ok,0");
}

TEST_P(RepositorySemantics, HashesWithTheHighBitSetRoundTrip) {
  NewPlan plan = SamplePlan(1, /*first_op=*/0xF000'0000'0000'0001ull);
  plan.plan_key = {.low = ~0ull, .high = 0x8000'0000'0000'0000ull};
  Insert(plan);
  const LoadedPlans loaded = Load(0xF000'0000'0000'0001ull);
  ASSERT_THAT(loaded.plans, SizeIs(1));
  EXPECT_EQ(loaded.plans[0].plan_key, plan.plan_key);
  std::optional<PlanRowId> found;
  ASSERT_TRUE(repo_->FindPlanByKey(env_, plan.plan_key, &found).ok());
  EXPECT_EQ(found, loaded.plans[0].id);
}

TEST_P(RepositorySemantics, UniqueConflictReturnsTheExistingPlan) {
  const InsertResult first = Insert(SamplePlan(1));
  NewPlan again = SamplePlan(1);
  again.plan_blob = sqlite_test::BytesOf("another plan blob");
  const InsertResult second = Insert(again);
  EXPECT_EQ(second.outcome, InsertOutcome::kExisting);
  EXPECT_EQ(second.plan_id, first.plan_id);
  ASSERT_THAT(Load().plans, SizeIs(1));
  EXPECT_EQ(Load().plans[0].plan_blob, SamplePlan(1).plan_blob);  // the first bytes stay
}

TEST_P(RepositorySemantics, SameKeyWithOtherOpsIsACollisionAndNotStored) {
  const InsertResult first = Insert(SamplePlan(1));
  NewPlan other = SamplePlan(1);
  other.ops_blob = sqlite_test::BytesOf("other ops");
  const InsertResult second = Insert(other);
  EXPECT_EQ(second.outcome, InsertOutcome::kKeyCollision);
  EXPECT_EQ(second.plan_id, first.plan_id);
  EXPECT_EQ(Count("plans"), 1);
}

TEST_P(RepositorySemantics, QuarantinedPlanIsHiddenAndRepairedByAFreshPublication) {
  const PlanRowId id = Insert(SamplePlan(1)).plan_id;
  ASSERT_TRUE(repo_->Quarantine(id, "test").ok());
  EXPECT_THAT(Load().plans, IsEmpty());
  EXPECT_EQ(repo_->Quarantine(4242, "absent").code(), Status::Code::kNotFound);
  const InsertResult repaired = Insert(SamplePlan(1));
  EXPECT_EQ(repaired.outcome, InsertOutcome::kReplacedQuarantined);
  EXPECT_EQ(repaired.plan_id, id);
  ASSERT_THAT(Load().plans, SizeIs(1));
  EXPECT_EQ(Raw("SELECT status FROM plans"), "ok");
}

TEST_P(RepositorySemantics, TriggersAreDeduplicatedAndKeepTheirFirstPosition) {
  const PlanRowId id = Insert(SamplePlan(1)).plan_id;
  size_t added = 0;
  ASSERT_TRUE(repo_->AppendTriggers(id, std::vector{OnOps("a"), OnOps("b")}, &added).ok());
  EXPECT_EQ(added, 2u);
  ASSERT_TRUE(
      repo_->AppendTriggers(id, std::vector{OnOps("b"), OnOps("c"), OnOps("a")}, &added).ok());
  EXPECT_EQ(added, 1u);
  ASSERT_TRUE(repo_->AppendTriggers(id, std::vector{Always(), OnSync(), Always()}, &added).ok());
  EXPECT_EQ(added, 2u);
  EXPECT_THAT(TriggersOf(id), ElementsAre(OnOps("a"), OnOps("b"), OnOps("c"), Always(), OnSync()));
}

TEST_P(RepositorySemantics, TriggersForAMissingPlanAreRefused) {
  const Status s = repo_->AppendTriggers(999, std::vector{OnOps("A")});
  EXPECT_EQ(s.code(), Status::Code::kNotFound) << s.ToString();
  EXPECT_EQ(Count("triggers"), 0);
}

// Note [Plans gc removed]: in a batch, triggers of a plan that is gone (by id, or by key) are
// reported, not written, and the rest of the batch commits.
TEST_P(RepositorySemantics, AppendsForAPlanThatIsGoneAreReportedAndTheRestCommits) {
  const PlanRowId kept = Insert(SamplePlan(1)).plan_id;
  PublishBatch batch{.environment_id = env_};
  batch.plans.push_back({SamplePlan(2), {}, {}});
  batch.triggers.push_back({/*plan_id=*/4242, {OnOps("orphan")}});
  batch.triggers.push_back({kept, {OnOps("kept")}});
  batch.triggers.push_back({kept, {OnOps("by key")}, SamplePlan(3).plan_key});
  PublishResult result;
  const Status s = repo_->Publish(batch, &result);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_THAT(result.plans_gone, ElementsAre(0u, 2u));
  EXPECT_THAT(TriggersOf(kept), ElementsAre(OnOps("kept")));
  EXPECT_EQ(Count("plans"), 2);
}

TEST_P(RepositorySemantics, PublishCommitsPlansTriggersAndKernelsTogether) {
  const PlanRowId existing = Insert(SamplePlan(1)).plan_id;
  PublishBatch batch{.environment_id = env_};
  batch.plans.push_back({SamplePlan(1), {OnOps("x")}, {}});
  batch.plans.push_back({SamplePlan(2), {OnOps("y"), OnOps("y")}, {SampleKernel("k2")}});
  batch.plans.push_back({SamplePlan(3), {}, {}});
  batch.triggers.push_back({existing, {OnOps("z"), OnOps("x")}});
  batch.kernels.push_back(SampleKernel("free"));
  PublishResult result;
  const Status s = repo_->Publish(batch, &result);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_THAT(result.plans, SizeIs(3));
  EXPECT_EQ(result.plans[0].outcome, InsertOutcome::kExisting);
  EXPECT_EQ(result.plans[0].plan_id, existing);
  EXPECT_EQ(result.plans[1].outcome, InsertOutcome::kInserted);
  EXPECT_EQ(result.triggers_added, 3u);
  EXPECT_EQ(result.kernels_added, 2u);
  EXPECT_THAT(TriggersOf(existing), ElementsAre(OnOps("x"), OnOps("z")));
  StoredKernel kernel;
  ASSERT_TRUE(repo_->GetKernel(env_, SampleKernel("k2").key, &kernel).ok());
  EXPECT_EQ(kernel.plan_id, result.plans[1].plan_id);
  EXPECT_EQ(Count("plan_kernels"), 1);
}

// Note [Prefetched kernels] (store/persistent_kernels.h): one query reads the kernels of the
// plans a workload ran, and no other.
TEST_P(RepositorySemantics, AWorkloadsKernelsAreTheKernelsOfThePlansItRan) {
  PublishBatch batch{.environment_id = env_};
  batch.plans.push_back({SamplePlan(1), {}, {SampleKernel("k1"), SampleKernel("shared")}});
  batch.plans.push_back({SamplePlan(2), {}, {SampleKernel("k2")}});
  PublishResult published;
  ASSERT_TRUE(repo_->Publish(batch, &published).ok());
  WorkloadRow ran;
  WorkloadRow other;
  ASSERT_TRUE(repo_->GetOrCreateWorkload(env_, "ran", &ran).ok());
  ASSERT_TRUE(repo_->GetOrCreateWorkload(env_, "other", &other).ok());
  const std::pair<PlanRowId, int64_t> hits[] = {{published.plans[0].plan_id, 3}};
  ASSERT_TRUE(repo_->RecordHitCounts(hits, ran.id).ok());
  std::vector<StoredKernel> kernels;
  ASSERT_TRUE(repo_->LoadWorkloadKernels(env_, ran.id, size_t{1} << 20, &kernels).ok());
  std::vector<Blob> keys;
  for (const StoredKernel& k : kernels) {
    keys.push_back(k.key.source_hash);
    EXPECT_EQ(k.binary, SampleKernel("k1").binary);  // every sample kernel has one binary
  }
  EXPECT_THAT(keys, ::testing::UnorderedElementsAre(SampleKernel("k1").key.source_hash,
                                                    SampleKernel("shared").key.source_hash));
  ASSERT_TRUE(repo_->LoadWorkloadKernels(env_, other.id, size_t{1} << 20, &kernels).ok());
  EXPECT_THAT(kernels, SizeIs(0)) << "a workload that ran nothing";
  ASSERT_TRUE(repo_->LoadWorkloadKernels(env_, ran.id, 1, &kernels).ok());
  EXPECT_THAT(kernels, SizeIs(1)) << "the byte bound stops the read after the first binary";
}

TEST_P(RepositorySemantics, FailedPublishLeavesNothingOfTheBatch) {
  PublishBatch batch{.environment_id = env_};
  batch.plans.push_back({SamplePlan(1), {OnOps("x")}, {SampleKernel("k1")}});
  batch.plans.push_back({SamplePlan(2), {}, {}});
  batch.kernels.push_back(SampleKernel("free"));
  // The database refuses the batch's last row, a kernel of no plan.
  if (postgres()) {
    RawExec(
        "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.plan_id IS "
        "NULL THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$");
    RawExec(
        "CREATE TRIGGER refuse BEFORE INSERT ON kernels FOR EACH ROW EXECUTE FUNCTION refuse()");
  } else {
    RawExec(
        "CREATE TRIGGER refuse BEFORE INSERT ON kernels WHEN NEW.plan_id IS NULL BEGIN SELECT "
        "RAISE(ABORT, 'refused'); END");
  }
  PublishResult result;
  EXPECT_FALSE(repo_->Publish(batch, &result).ok());
  EXPECT_THAT(Load().plans, IsEmpty());
  EXPECT_EQ(Count("plans"), 0);
  EXPECT_EQ(Count("triggers"), 0);
  EXPECT_EQ(Count("kernels"), 0);
  // The connection is still usable after the rollback.
  EXPECT_EQ(Insert(SamplePlan(3)).outcome, InsertOutcome::kInserted);
}

TEST_P(RepositorySemantics, HitsCountPerPlanAndPerWorkload) {
  const PlanRowId a = Insert(SamplePlan(1)).plan_id;
  const PlanRowId b = Insert(SamplePlan(2)).plan_id;
  WorkloadRow workload;
  ASSERT_TRUE(repo_->GetOrCreateWorkload(env_, "train", &workload).ok());
  ASSERT_TRUE(repo_->RecordHits(std::vector<PlanRowId>{a, b, a, 777}, workload.id).ok());
  ASSERT_TRUE(repo_->RecordHits(std::vector<PlanRowId>{a}, std::nullopt).ok());
  const std::string id_a = std::to_string(a), id_b = std::to_string(b);
  EXPECT_EQ(Raw("SELECT CAST(hits AS TEXT) FROM plans WHERE id = " + id_a), "3");
  EXPECT_EQ(Raw("SELECT CAST(hits AS TEXT) FROM plans WHERE id = " + id_b), "1");
  EXPECT_EQ(Raw("SELECT CAST(hits AS TEXT) FROM plan_usage WHERE plan_id = " + id_a), "2");
  EXPECT_EQ(Count("plan_usage"), 2);
}

TEST_P(RepositorySemantics, FlippedByteIsQuarantinedOnLoad) {
  const PlanRowId id = Insert(SamplePlan(1)).plan_id;
  Insert(SamplePlan(2));
  RawExec("UPDATE plans SET checksum = checksum + 1 WHERE id = " + std::to_string(id));
  const LoadedPlans loaded = Load();
  EXPECT_EQ(loaded.quarantined, 1u);
  ASSERT_THAT(loaded.plans, SizeIs(1));
  EXPECT_NE(loaded.plans[0].id, id);
  EXPECT_EQ(Raw("SELECT status FROM plans WHERE id = " + std::to_string(id)), "quarantined");
}

// --- Workloads ---------------------------------------------------------------------------------

TEST_P(RepositorySemantics, NewWorkloadStartsEmptyAndUncapped) {
  WorkloadRow w;
  ASSERT_TRUE(repo_->GetOrCreateWorkload(env_, "train", &w).ok());
  EXPECT_EQ(w.name, "train");
  EXPECT_EQ(w.explorations, 0);
  EXPECT_EQ(w.max_explorations, std::nullopt);
  WorkloadRow again;
  ASSERT_TRUE(repo_->GetOrCreateWorkload(env_, "train", &again).ok());
  EXPECT_EQ(again.id, w.id);
  bool found = false;
  ASSERT_TRUE(repo_->FindWorkload(env_, "eval", &found, &again).ok());
  EXPECT_FALSE(found);
  EXPECT_EQ(repo_->GetWorkload(4242, &again).code(), Status::Code::kNotFound);
}

TEST_P(RepositorySemantics, BudgetSpentYesterdayIsSpentToday) {
  WorkloadRow w;
  ASSERT_TRUE(repo_->GetOrCreateWorkload(env_, "train", &w).ok());
  ASSERT_TRUE(repo_->SetCap(w.id, 2).ok());
  bool granted = false;
  int64_t count = 0;
  ASSERT_TRUE(repo_->TryReserveExploration(w.id, std::nullopt, &granted, &count).ok());
  EXPECT_TRUE(granted);
  EXPECT_EQ(count, 1);
  Reopen();  // "Tomorrow".
  ASSERT_TRUE(repo_->TryReserveExploration(w.id, std::nullopt, &granted, &count).ok());
  EXPECT_TRUE(granted);
  ASSERT_TRUE(repo_->TryReserveExploration(w.id, std::nullopt, &granted, &count).ok());
  EXPECT_FALSE(granted);
  EXPECT_EQ(count, 2);
  ASSERT_TRUE(repo_->ResetExplorations(w.id).ok());
  ASSERT_TRUE(repo_->TryReserveExploration(w.id, std::nullopt, &granted, &count).ok());
  EXPECT_TRUE(granted);
  ASSERT_TRUE(repo_->SetCap(w.id, std::nullopt).ok());
  ASSERT_TRUE(repo_->AddExplorations(w.id, 5, &count).ok());
  EXPECT_EQ(count, 6);
  EXPECT_EQ(repo_->SetCap(w.id, -1).code(), Status::Code::kInvalidArgument);
}

TEST_P(RepositorySemantics, CountersAccumulate) {
  WorkloadRow w;
  ASSERT_TRUE(repo_->GetOrCreateWorkload(env_, "train", &w).ok());
  ASSERT_TRUE(repo_->AddCounters(w.id, {.hits = 3, .misses = 1, .unfused_runs = 2}).ok());
  ASSERT_TRUE(repo_->AddCounters(w.id, {.hits = 1, .misses = 0, .unfused_runs = 0}).ok());
  ASSERT_TRUE(repo_->GetWorkload(w.id, &w).ok());
  EXPECT_EQ(w.hits, 4);
  EXPECT_EQ(w.misses, 1);
  EXPECT_EQ(w.unfused_runs, 2);
  EXPECT_EQ(repo_->AddCounters(4242, {.hits = 1}).code(), Status::Code::kNotFound);
}

// The budget is one counter for every process (on a server: every host): eight processes race
// for a cap of five, and exactly five explorations are granted in all.
TEST_P(RepositorySemantics, TheBudgetHoldsWithEightConcurrentProcesses) {
  WorkloadRow w;
  ASSERT_TRUE(repo_->GetOrCreateWorkload(env_, "fleet", &w).ok());
  ASSERT_TRUE(repo_->SetCap(w.id, 5).ok());
  std::vector<pid_t> children;
  for (int i = 0; i < 8; ++i) {
    children.push_back(test::ForkChild([&] {
      std::unique_ptr<PlanRepository> mine = Open();
      if (mine == nullptr) return 100;
      int granted_here = 0;
      for (int attempt = 0; attempt < 4; ++attempt) {
        bool granted = false;
        int64_t count = 0;
        if (!mine->TryReserveExploration(w.id, std::nullopt, &granted, &count).ok()) return 101;
        granted_here += granted ? 1 : 0;
      }
      return granted_here;
    }));
  }
  int granted = 0;
  for (pid_t pid : children) {
    const int code = test::WaitChild(pid);
    ASSERT_LE(code, 4) << "a child failed with " << code;
    granted += code;
  }
  EXPECT_EQ(granted, 5);
  ASSERT_TRUE(repo_->GetWorkload(w.id, &w).ok());
  EXPECT_EQ(w.explorations, 5);
}

// Eight processes publish the same plan at once: one row, and every one of them gets its id.
TEST_P(RepositorySemantics, ConcurrentPublicationsOfOnePlanKeepOneRow) {
  std::vector<pid_t> children;
  for (int i = 0; i < 8; ++i) {
    children.push_back(test::ForkChild([&] {
      std::unique_ptr<PlanRepository> mine = Open();
      if (mine == nullptr) return 1;
      PublishBatch batch{.environment_id = env_};
      batch.plans.push_back({SamplePlan(1), {OnOps(fmt::format("t{}", i % 3))}, {}});
      PublishResult result;
      return mine->Publish(batch, &result).ok() ? 0 : 2;
    }));
  }
  for (pid_t pid : children) EXPECT_EQ(test::WaitChild(pid), 0);
  EXPECT_EQ(Count("plans"), 1);
  ASSERT_THAT(Load().plans, SizeIs(1));
  EXPECT_THAT(Load().plans[0].triggers, SizeIs(3));
  EXPECT_EQ(Raw("SELECT CAST(max(position) AS TEXT) FROM triggers"), "2");
}

// A process killed inside its publication (after the first of three plans, between statements
// of one transaction) leaves nothing of the batch, and the next process publishes it whole.
TEST_P(RepositorySemantics, AProcessKilledMidPublishLeavesNothingPartial) {
  PublishBatch batch{.environment_id = env_};
  for (uint64_t n = 1; n <= 3; ++n) {
    batch.plans.push_back({SamplePlan(n), {OnOps("t")}, {SampleKernel(fmt::format("k{}", n))}});
  }
  const pid_t child = test::ForkChild([&] {
    std::unique_ptr<PlanRepository> mine = Open();
    if (mine == nullptr) return 1;
    mine->SetPublishHookForTesting([](size_t item) {
      if (item == 0) raise(SIGKILL);
    });
    PublishResult result;
    mine->Publish(batch, &result);
    return 2;  // not reached
  });
  EXPECT_EQ(test::WaitChild(child), test::kKilledBySignal + SIGKILL);
  EXPECT_EQ(Count("plans"), 0);
  EXPECT_EQ(Count("triggers"), 0);
  EXPECT_EQ(Count("kernels"), 0);
  PublishResult result;
  ASSERT_TRUE(repo_->Publish(batch, &result).ok());
  EXPECT_THAT(Load().plans, SizeIs(3));
}

// --- Kernels -----------------------------------------------------------------------------------

TEST_P(RepositorySemantics, KernelIsFoundOnlyByItsExactKeyAndTheExistingOneWins) {
  KernelRowId id = 0;
  bool added = false;
  ASSERT_TRUE(repo_->PutKernel(env_, SampleKernel("src"), &id, &added).ok());
  EXPECT_TRUE(added);
  KernelRowId again = 0;
  ASSERT_TRUE(repo_->PutKernel(env_, SampleKernel("src", "sm_90", "other"), &again, &added).ok());
  EXPECT_FALSE(added);
  EXPECT_EQ(again, id);
  StoredKernel kernel;
  ASSERT_TRUE(repo_->GetKernel(env_, SampleKernel("src").key, &kernel).ok());
  EXPECT_EQ(kernel.binary, SampleKernel("src").binary);
  EXPECT_EQ(repo_->GetKernel(env_, SampleKernel("src", "sm_80").key, &kernel).code(),
            Status::Code::kNotFound);
  NewKernel replacement = SampleKernel("src", "sm_90", "new binary");
  replacement.replace = true;
  ASSERT_TRUE(repo_->PutKernel(env_, replacement, &again, &added).ok());
  ASSERT_TRUE(repo_->GetKernel(env_, SampleKernel("src").key, &kernel).ok());
  EXPECT_EQ(kernel.binary, replacement.binary);
}

TEST_P(RepositorySemantics, DamagedKernelIsNeverReturnedAndIsDeleted) {
  KernelRowId id = 0;
  ASSERT_TRUE(repo_->PutKernel(env_, SampleKernel("src"), &id).ok());
  RawExec("UPDATE kernels SET checksum = checksum + 1");
  StoredKernel kernel;
  EXPECT_EQ(repo_->GetKernel(env_, SampleKernel("src").key, &kernel).code(),
            Status::Code::kCorruption);
  EXPECT_TRUE(kernel.binary.empty());
  EXPECT_EQ(Count("kernels"), 0);
}

TEST_P(RepositorySemantics, AReadOnlyOpenRefusesWritesAndChangesNothing) {
  Insert(SamplePlan(1));
  std::unique_ptr<PlanRepository> reader = Open(/*read_only=*/true);
  ASSERT_NE(reader, nullptr);
  EXPECT_FALSE(reader->writable());
  InsertResult result;
  EXPECT_EQ(reader->InsertPlan(env_, SamplePlan(2), &result).code(), Status::Code::kUnavailable);
  LoadedPlans loaded;
  ASSERT_TRUE(reader->LoadPlansByFirstOp(env_, 7, &loaded).ok());
  EXPECT_THAT(loaded.plans, SizeIs(1));
  EXPECT_EQ(Count("plans"), 1);
}

}  // namespace
}  // namespace ember
