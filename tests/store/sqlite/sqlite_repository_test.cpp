// PlanRepository's plans and triggers: load by first op, the "existing plan wins" rule, trigger
// dedup in append order, batched publication in one transaction, hits, quarantine, checksums
// verified on load, and disk full.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/core/log.h"
#include "store/codec/row_checksum.h"
#include "store/repository/column_encoding.h"
#include "store/sqlite/sqlite_database.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::Always;
using sqlite_test::BytesOf;
using sqlite_test::OnOps;
using sqlite_test::OnSync;
using sqlite_test::RawDb;
using sqlite_test::SampleKernel;
using sqlite_test::SamplePlan;
using test::OpenRepository;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;
using testing::SizeIs;

class SqliteRepository : public test::RepositoryFixture {
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
};

TEST_F(SqliteRepository, InsertedPlanLoadsByItsFirstOp) {
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
  EXPECT_EQ(loaded.quarantined, 0u);
  EXPECT_THAT(Load(9).plans, IsEmpty());

  RawDb raw(path_);
  EXPECT_EQ(raw.Text("SELECT ops_bytes || ',' || plan_bytes || ',' || explore_ms || ',' || "
                     "status || ',' || hits FROM plans WHERE id = " +
                     std::to_string(result.plan_id)),
            "5,6,1.5,ok,0");
}

TEST_F(SqliteRepository, HashesWithTheHighBitSetRoundTrip) {
  NewPlan plan = SamplePlan(1, /*first_op=*/0xFEDCBA9876543210ull);
  plan.plan_key = {.low = ~0ull, .high = 0x8000000000000001ull};
  Insert(plan);
  const LoadedPlans loaded = Load(0xFEDCBA9876543210ull);
  ASSERT_THAT(loaded.plans, SizeIs(1));
  EXPECT_EQ(loaded.plans[0].plan_key, plan.plan_key);
  RawDb raw(path_);
  EXPECT_EQ(raw.Text("SELECT hex(plan_key) FROM plans"), "8000000000000001FFFFFFFFFFFFFFFF");
  EXPECT_EQ(raw.Int("SELECT first_op_hash FROM plans"), ToColumn(0xFEDCBA9876543210ull));
}

TEST_F(SqliteRepository, UniqueConflictReturnsTheExistingPlan) {
  const InsertResult first = Insert(SamplePlan(1));
  NewPlan later = SamplePlan(1);
  later.plan_blob = BytesOf("a different strategy for the same ops");
  const InsertResult second = Insert(later);
  EXPECT_EQ(second.outcome, InsertOutcome::kExisting);
  EXPECT_EQ(second.plan_id, first.plan_id);
  const LoadedPlans loaded = Load();
  ASSERT_THAT(loaded.plans, SizeIs(1));
  EXPECT_EQ(loaded.plans[0].plan_blob, SamplePlan(1).plan_blob);  // The existing plan won.
}

TEST_F(SqliteRepository, SameKeyWithOtherOpsIsACollisionAndNotStored) {
  const InsertResult first = Insert(SamplePlan(1));
  NewPlan impostor = SamplePlan(1);
  impostor.ops_blob = BytesOf("other ops");
  const InsertResult second = Insert(impostor);
  EXPECT_EQ(second.outcome, InsertOutcome::kKeyCollision);
  EXPECT_EQ(second.plan_id, first.plan_id);
  ASSERT_THAT(Load().plans, SizeIs(1));
  EXPECT_EQ(Load().plans[0].ops_blob, SamplePlan(1).ops_blob);
}

TEST_F(SqliteRepository, QuarantinedPlanIsHiddenAndRepairedByAFreshPublication) {
  const InsertResult first = Insert(SamplePlan(1));
  ASSERT_TRUE(repo_->Quarantine(first.plan_id, "decode failed").ok());
  EXPECT_THAT(Load().plans, IsEmpty());
  {
    RawDb raw(path_);
    EXPECT_EQ(raw.Text("SELECT status || ':' || quarantine_reason FROM plans"),
              "quarantined:decode failed");
  }
  const InsertResult again = Insert(SamplePlan(1));
  EXPECT_EQ(again.outcome, InsertOutcome::kReplacedQuarantined);
  EXPECT_EQ(again.plan_id, first.plan_id);
  ASSERT_THAT(Load().plans, SizeIs(1));
  EXPECT_EQ(repo_->Quarantine(12345, "x").code(), Status::Code::kNotFound);
}

// The repair writes, in place, every column a fresh insert of the new publication would
// (PlanColumns in store/repository/plan_columns.h); the row keeps its id, environment and key.
TEST_F(SqliteRepository, RepairedRowHoldsEveryColumnOfTheNewPublication) {
  const InsertResult first = Insert(SamplePlan(1));
  ASSERT_TRUE(repo_->Quarantine(first.plan_id, "decode failed").ok());
  NewPlan fresh = SamplePlan(1, 9, "import:warm.bundle");
  fresh.ops_blob = BytesOf("other ops");
  fresh.plan_blob = BytesOf("a longer, different plan");
  fresh.num_ops = 4;
  fresh.explore_ms = 2.25;
  ASSERT_EQ(Insert(fresh).outcome, InsertOutcome::kReplacedQuarantined);
  RawDb raw(path_);
  EXPECT_EQ(raw.Text("SELECT id || ' ' || environment_id || ' ' || first_op_hash || ' ' || "
                     "CAST(ops_blob AS TEXT) || ' ' || CAST(plan_blob AS TEXT) || ' ' || "
                     "checksum || ' ' || ops_bytes || ' ' || plan_bytes || ' ' || num_ops || ' ' "
                     "|| explore_ms || ' ' || origin || ' ' || status || ' ' || "
                     "COALESCE(quarantine_reason, 'none') FROM plans"),
            std::to_string(first.plan_id) + " " + std::to_string(env_) +
                " 9 other ops a longer, different plan " +
                std::to_string(ToColumn(PlanChecksum(fresh.ops_blob, fresh.plan_blob))) +
                " 9 24 4 2.25 import:warm.bundle ok none");
  EXPECT_GT(raw.Int("SELECT created FROM plans"), 0);
  ASSERT_THAT(Load(9).plans, SizeIs(1));
}

TEST_F(SqliteRepository, TriggersAreDeduplicatedAndKeepTheirFirstPosition) {
  const PlanRowId id = Insert(SamplePlan(1)).plan_id;
  const std::vector<TriggerRow> first = {OnOps("A"), OnOps("B")};
  const std::vector<TriggerRow> second = {OnOps("B"), OnOps("C"), OnOps("A"),
                                          OnSync(),   OnOps("D"), OnSync()};
  size_t added = 0;
  ASSERT_TRUE(repo_->AppendTriggers(id, first, &added).ok());
  EXPECT_EQ(added, 2u);
  ASSERT_TRUE(repo_->AppendTriggers(id, second, &added).ok());
  EXPECT_EQ(added, 3u);
  EXPECT_THAT(TriggersOf(id),
              ElementsAre(OnOps("A"), OnOps("B"), OnOps("C"), OnSync(), OnOps("D")));
  RawDb raw(path_);
  EXPECT_THAT(raw.Column("SELECT position FROM triggers ORDER BY position"),
              ElementsAre("0", "1", "2", "3", "4"));
}

TEST_F(SqliteRepository, TriggersWithoutOpsDifferByKind) {
  const PlanRowId id = Insert(SamplePlan(1)).plan_id;
  const std::vector<TriggerRow> triggers = {Always(), OnSync(), Always(), OnOps("")};
  size_t added = 0;
  ASSERT_TRUE(repo_->AppendTriggers(id, triggers, &added).ok());
  EXPECT_EQ(added, 3u);
  EXPECT_THAT(TriggersOf(id), ElementsAre(Always(), OnSync(), OnOps("")));
}

TEST_F(SqliteRepository, TriggersForAMissingPlanAreRefused) {
  const std::vector<TriggerRow> triggers = {OnOps("A")};
  const Status s = repo_->AppendTriggers(999, triggers);
  EXPECT_EQ(s.code(), Status::Code::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("has no plan 999"));
}

TEST_F(SqliteRepository, TriggersOfEachPlanLoadInOrder) {
  const PlanRowId a = Insert(SamplePlan(1)).plan_id;
  const PlanRowId b = Insert(SamplePlan(2)).plan_id;
  const PlanRowId c = Insert(SamplePlan(3)).plan_id;
  ASSERT_TRUE(repo_->AppendTriggers(b, std::vector{OnOps("b1"), OnOps("b0")}).ok());
  ASSERT_TRUE(repo_->AppendTriggers(a, std::vector{OnOps("a0")}).ok());
  ASSERT_TRUE(repo_->AppendTriggers(b, std::vector{OnOps("b2")}).ok());
  const LoadedPlans loaded = Load();
  ASSERT_THAT(loaded.plans, SizeIs(3));
  EXPECT_EQ(loaded.plans[0].id, a);
  EXPECT_THAT(loaded.plans[0].triggers, ElementsAre(OnOps("a0")));
  EXPECT_THAT(loaded.plans[1].triggers, ElementsAre(OnOps("b1"), OnOps("b0"), OnOps("b2")));
  EXPECT_EQ(loaded.plans[2].id, c);
  EXPECT_THAT(loaded.plans[2].triggers, IsEmpty());
}

TEST_F(SqliteRepository, PublishCommitsPlansTriggersAndKernelsTogether) {
  const PlanRowId existing = Insert(SamplePlan(1)).plan_id;
  PublishBatch batch{.environment_id = env_};
  batch.plans.push_back({SamplePlan(1), {OnOps("x")}, {}});  // Already there: merge triggers.
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
  EXPECT_EQ(result.plans[2].outcome, InsertOutcome::kInserted);
  EXPECT_EQ(result.triggers_added, 3u);  // x, y, z
  EXPECT_EQ(result.kernels_added, 2u);
  EXPECT_THAT(TriggersOf(existing), ElementsAre(OnOps("x"), OnOps("z")));
  StoredKernel kernel;
  ASSERT_TRUE(repo_->GetKernel(env_, SampleKernel("k2").key, &kernel).ok());
  EXPECT_EQ(kernel.plan_id, result.plans[1].plan_id);
  ASSERT_TRUE(repo_->GetKernel(env_, SampleKernel("free").key, &kernel).ok());
  EXPECT_EQ(kernel.plan_id, std::nullopt);
}

TEST_F(SqliteRepository, FailedPublishLeavesNothingOfTheBatch) {
  PublishBatch batch{.environment_id = env_};
  batch.plans.push_back({SamplePlan(1), {OnOps("x")}, {SampleKernel("k1")}});
  batch.plans.push_back({SamplePlan(2), {}, {}});
  batch.kernels.push_back(SampleKernel("free"));
  RawDb raw(path_);
  // Another program's rule refuses the batch's last row, a kernel of no plan.
  raw.Exec(
      "CREATE TRIGGER refuse BEFORE INSERT ON kernels WHEN NEW.plan_id IS NULL BEGIN "
      "SELECT RAISE(ABORT, 'refused'); END");
  PublishResult result;
  const Status s = repo_->Publish(batch, &result);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(Load().plans, IsEmpty());
  EXPECT_EQ(raw.Int("SELECT count(*) FROM plans"), 0);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM triggers"), 0);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM kernels"), 0);
}

TEST_F(SqliteRepository, HitsCountPerPlanAndPerWorkload) {
  const PlanRowId a = Insert(SamplePlan(1)).plan_id;
  const PlanRowId b = Insert(SamplePlan(2)).plan_id;
  WorkloadRow workload;
  ASSERT_TRUE(repo_->GetOrCreateWorkload(env_, "train", &workload).ok());
  const std::vector<PlanRowId> hits = {a, b, a, 777};
  ASSERT_TRUE(repo_->RecordHits(hits, workload.id).ok());
  ASSERT_TRUE(repo_->RecordHits(std::vector<PlanRowId>{a}, std::nullopt).ok());
  RawDb raw(path_);
  EXPECT_EQ(raw.Int("SELECT hits FROM plans WHERE id = " + std::to_string(a)), 3);
  EXPECT_EQ(raw.Int("SELECT hits FROM plans WHERE id = " + std::to_string(b)), 1);
  EXPECT_GT(raw.Int("SELECT last_hit FROM plans WHERE id = " + std::to_string(a)), 0);
  EXPECT_THAT(raw.Column("SELECT plan_id || ':' || hits FROM plan_usage ORDER BY plan_id"),
              ElementsAre(std::to_string(a) + ":2", std::to_string(b) + ":1"));
}

TEST_F(SqliteRepository, FlippedByteIsQuarantinedOnLoadAndLoggedOnce) {
  const PlanRowId good = Insert(SamplePlan(1)).plan_id;
  const PlanRowId bad = Insert(SamplePlan(2)).plan_id;
  {
    RawDb raw(path_);
    raw.Exec("UPDATE plans SET plan_blob = X'706c616e2d33' WHERE id = " + std::to_string(bad));
  }
  ScopedLogCapture log(LogLevel::kBasic);
  const LoadedPlans loaded = Load();
  ASSERT_THAT(loaded.plans, SizeIs(1));
  EXPECT_EQ(loaded.plans[0].id, good);
  EXPECT_EQ(loaded.quarantined, 1u);
  ASSERT_THAT(log.messages(), SizeIs(1));
  EXPECT_THAT(log.messages()[0], HasSubstr("checksum mismatch"));
  RawDb raw(path_);
  EXPECT_EQ(raw.Text("SELECT status FROM plans WHERE id = " + std::to_string(bad)), "quarantined");
  EXPECT_THAT(raw.Text("SELECT quarantine_reason FROM plans WHERE id = " + std::to_string(bad)),
              HasSubstr("checksum mismatch"));
  const LoadedPlans again = Load();
  EXPECT_THAT(again.plans, SizeIs(1));
  EXPECT_EQ(again.quarantined, 0u);
  EXPECT_THAT(log.messages(), SizeIs(1));
}

TEST_F(SqliteRepository, DiskFullGivesResourceExhaustedAndKeepsCommittedData) {
  for (uint64_t i = 0; i < 3; ++i) Insert(SamplePlan(i));
  SqliteDatabase& db = repo_->database().sqlite();
  std::string pages;
  ASSERT_TRUE(db.QueryText("PRAGMA page_count", "page count", &pages).ok());
  ASSERT_TRUE(db.Exec("PRAGMA max_page_count = " + pages, "limit").ok());

  NewPlan big = SamplePlan(10);
  big.plan_blob.assign(256 * 1024, 0x5A);
  InsertResult result;
  const Status s = repo_->InsertPlan(env_, big, &result);
  EXPECT_EQ(s.code(), Status::Code::kResourceExhausted) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("disk full"));
  EXPECT_THAT(s.message(), HasSubstr("inserting a plan"));
  PublishBatch batch{.environment_id = env_};
  batch.plans.push_back({big, {OnOps("t")}, {}});
  PublishResult published;
  EXPECT_EQ(repo_->Publish(batch, &published).code(), Status::Code::kResourceExhausted);

  // Still usable for reads; committed data intact, here and after reopening.
  EXPECT_THAT(Load().plans, SizeIs(3));
  repo_.reset();
  repo_ = OpenRepository(path_);
  EXPECT_THAT(Load().plans, SizeIs(3));
  RawDb raw(path_);
  EXPECT_EQ(raw.Text("PRAGMA integrity_check"), "ok");
}

TEST(RowChecksum, ValuesArePinned) {
  // XXH3_64bits("\x03\0\0\0\0\0\0\0" "opsplan") and XXH3_64bits("binary").
  EXPECT_EQ(PlanChecksum(BytesOf("ops"), BytesOf("plan")), 0x1157f2fba995c52dull);
  EXPECT_EQ(KernelChecksum(BytesOf("binary")), 0x36fae864859a8fb6ull);
  // The length prefix keeps bytes from moving between the blobs unnoticed.
  EXPECT_NE(PlanChecksum(BytesOf("opsp"), BytesOf("lan")),
            PlanChecksum(BytesOf("ops"), BytesOf("plan")));
  // A device fact's: XXH3_64bits("\x04\0\0\0\0\0\0\0" "namevalue"), the plans' recipe.
  EXPECT_EQ(DeviceFactChecksum("name", "value"), 0xc432e685ff42568bull);
  EXPECT_NE(DeviceFactChecksum("namev", "alue"), DeviceFactChecksum("name", "value"));
  // A graph recipe's: XXH3_64bits over the key and the body's length as 8 little-endian bytes
  // each, the body, then each kernel as 8 little-endian bytes.
  const uint64_t kernels[] = {1, 0xfedcba9876543210ull};
  EXPECT_EQ(GraphRecipeChecksum(0x0123456789abcdefull, "body", kernels), 0x5e5484e492f9ef87ull);
  EXPECT_NE(GraphRecipeChecksum(0x0123456789abcdefull, "body", std::span(kernels, 1)),
            GraphRecipeChecksum(0x0123456789abcdefull, "body", kernels));
}

TEST(ColumnEncoding, PlanKeysAreBigEndianHighHalfFirst) {
  const Hash128 key{.low = 0x1122334455667788ull, .high = 0x99AABBCCDDEEFF00ull};
  const Blob bytes = PlanKeyBytes(key);
  EXPECT_EQ(bytes, (Blob{0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x00, 0x11, 0x22, 0x33, 0x44,
                         0x55, 0x66, 0x77, 0x88}));
  EXPECT_EQ(PlanKeyFromBytes(bytes), key);
  EXPECT_EQ(PlanKeyFromBytes(Blob(15)), std::nullopt);
  EXPECT_EQ(FromColumn(ToColumn(~0ull)), ~0ull);
  EXPECT_EQ(ToColumn(~0ull), -1);
}

}  // namespace
}  // namespace ember
