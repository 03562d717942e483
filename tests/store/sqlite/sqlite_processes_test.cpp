// Real forked processes on one database file: concurrent first open, concurrent publishers with
// overlapping plans (every plan exactly once, triggers merged, no errors), exploration counts
// across processes, and SIGKILL in the middle of a batched publish (integrity_check ok, every
// batch whole or absent).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "store/sqlite/migrations.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::OnOps;
using sqlite_test::OnSync;
using sqlite_test::RawDb;
using sqlite_test::SampleKernel;
using sqlite_test::SamplePlan;
using sqlite_test::TempDir;
using test::ForkChild;
using test::KillChild;
using test::kKilledBySignal;
using test::OpenRepository;
using test::OptionsFor;
using test::SampleEnvironment;
using test::WaitChild;

// In a child: opens the repository and the sample environment, or exits non-zero.
struct ChildStore {
  std::unique_ptr<PlanRepository> repo;
  EnvironmentRowId env = 0;

  bool Open(const std::string& path) {
    Status s = PlanRepository::Open(OptionsFor(path), &repo);
    if (s.ok()) s = repo->EnsureEnvironment(SampleEnvironment(), &env);
    if (!s.ok()) std::fprintf(stderr, "child %d: %s\n", getpid(), s.ToString().c_str());
    return s.ok();
  }
};

int Fail(const Status& s) {
  std::fprintf(stderr, "child %d: %s\n", getpid(), s.ToString().c_str());
  return 1;
}

TEST(SqliteProcesses, ConcurrentFirstOpenOfANewFileMigratesOnce) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  std::vector<pid_t> children;
  for (int k = 0; k < 4; ++k) {
    children.push_back(ForkChild([&] { return ChildStore().Open(path) ? 0 : 1; }));
  }
  for (const pid_t pid : children) EXPECT_EQ(WaitChild(pid), 0);
  RawDb raw(path);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM schema_migrations"), LatestSchemaVersion());
  EXPECT_EQ(raw.Int("SELECT count(*) FROM environments"), 1);
}

TEST(SqliteProcesses, FourWritersWithOverlappingPlansStoreEachPlanExactlyOnce) {
  constexpr int kWriters = 4;
  constexpr uint64_t kPlansPerWriter = 100;
  constexpr uint64_t kStride = 25;
  constexpr uint64_t kBatch = 10;
  TempDir dir;
  const std::string path = dir.File("plans.db");
  OpenRepository(path);

  std::vector<pid_t> children;
  for (int k = 0; k < kWriters; ++k) {
    children.push_back(ForkChild([&, k]() -> int {
      ChildStore store;
      if (!store.Open(path)) return 1;
      for (uint64_t b = 0; b < kPlansPerWriter / kBatch; ++b) {
        PublishBatch batch{.environment_id = store.env};
        for (uint64_t j = 0; j < kBatch; ++j) {
          const uint64_t n = k * kStride + b * kBatch + j;
          batch.plans.push_back({SamplePlan(n, /*first_op=*/n % 5),
                                 {OnOps("common-" + std::to_string(n)),
                                  OnOps("writer-" + std::to_string(k)), OnSync()},
                                 {SampleKernel("kernel-" + std::to_string(n))}});
        }
        PublishResult result;
        if (Status s = store.repo->Publish(batch, &result); !s.ok()) return Fail(s);
        for (const InsertResult& r : result.plans) {
          if (r.outcome != InsertOutcome::kInserted && r.outcome != InsertOutcome::kExisting) {
            return 2;
          }
        }
      }
      return 0;
    }));
  }
  for (const pid_t pid : children) EXPECT_EQ(WaitChild(pid), 0);

  const uint64_t distinct = (kWriters - 1) * kStride + kPlansPerWriter;
  RawDb raw(path);
  EXPECT_EQ(raw.Text("PRAGMA integrity_check"), "ok");
  EXPECT_EQ(raw.Int("SELECT count(*) FROM plans"), static_cast<int64_t>(distinct));
  EXPECT_EQ(raw.Int("SELECT count(DISTINCT plan_key) FROM plans"), static_cast<int64_t>(distinct));
  EXPECT_EQ(raw.Int("SELECT count(*) FROM kernels"), static_cast<int64_t>(distinct));
  // Triggers merged: each plan has its common trigger and OnSync once, plus one per writer that
  // published it; positions are 0..count-1.
  for (uint64_t n = 0; n < distinct; ++n) {
    int writers = 0;
    for (int k = 0; k < kWriters; ++k) {
      writers += (n >= k * kStride && n < k * kStride + kPlansPerWriter) ? 1 : 0;
    }
    const std::string plan =
        "(SELECT id FROM plans WHERE ops_blob = CAST('ops-" + std::to_string(n) + "' AS BLOB))";
    EXPECT_EQ(raw.Int("SELECT count(*) FROM triggers WHERE plan_id = " + plan), 2 + writers) << n;
    EXPECT_EQ(raw.Int("SELECT max(position) + 1 FROM triggers WHERE plan_id = " + plan),
              2 + writers)
        << n;
  }
  // Every process sees the same plans.
  auto repo = OpenRepository(path);
  EnvironmentRowId env = 0;
  ASSERT_TRUE(repo->EnsureEnvironment(SampleEnvironment(), &env).ok());
  size_t loaded = 0;
  for (uint64_t first_op = 0; first_op < 5; ++first_op) {
    LoadedPlans plans;
    ASSERT_TRUE(repo->LoadPlansByFirstOp(env, first_op, &plans).ok());
    loaded += plans.plans.size();
  }
  EXPECT_EQ(loaded, distinct);
}

TEST(SqliteProcesses, ExplorationCountsAddUpAcrossProcesses) {
  constexpr int kProcesses = 4;
  constexpr int kEach = 50;
  TempDir dir;
  const std::string path = dir.File("plans.db");
  WorkloadRowId workload = 0;
  {
    auto repo = OpenRepository(path);
    EnvironmentRowId env = 0;
    ASSERT_TRUE(repo->EnsureEnvironment(SampleEnvironment(), &env).ok());
    WorkloadRow row;
    ASSERT_TRUE(repo->GetOrCreateWorkload(env, "shared", &row).ok());
    workload = row.id;
  }
  std::vector<pid_t> children;
  for (int k = 0; k < kProcesses; ++k) {
    children.push_back(ForkChild([&]() -> int {
      ChildStore store;
      if (!store.Open(path)) return 1;
      WorkloadRow row;
      if (Status s = store.repo->GetOrCreateWorkload(store.env, "shared", &row); !s.ok()) {
        return Fail(s);
      }
      if (row.id != workload) return 2;
      for (int i = 0; i < kEach; ++i) {
        int64_t count = 0;
        if (Status s = store.repo->AddExplorations(row.id, 1, &count); !s.ok()) return Fail(s);
        if (Status s = store.repo->AddCounters(row.id, {.hits = 1, .misses = 2}); !s.ok()) {
          return Fail(s);
        }
      }
      return 0;
    }));
  }
  for (const pid_t pid : children) EXPECT_EQ(WaitChild(pid), 0);
  auto repo = OpenRepository(path);
  WorkloadRow row;
  ASSERT_TRUE(repo->GetWorkload(workload, &row).ok());
  EXPECT_EQ(row.explorations, kProcesses * kEach);
  EXPECT_EQ(row.hits, kProcesses * kEach);
  EXPECT_EQ(row.misses, 2 * kProcesses * kEach);
}

TEST(SqliteProcesses, CapIsSharedAcrossProcesses) {
  constexpr int kProcesses = 4;
  constexpr int kAttempts = 20;
  constexpr int64_t kCap = 30;
  TempDir dir;
  const std::string path = dir.File("plans.db");
  WorkloadRowId workload = 0;
  {
    auto repo = OpenRepository(path);
    EnvironmentRowId env = 0;
    ASSERT_TRUE(repo->EnsureEnvironment(SampleEnvironment(), &env).ok());
    WorkloadRow row;
    ASSERT_TRUE(repo->GetOrCreateWorkload(env, "capped", &row).ok());
    ASSERT_TRUE(repo->SetCap(row.id, kCap).ok());
    workload = row.id;
  }
  std::vector<pid_t> children;
  for (int k = 0; k < kProcesses; ++k) {
    children.push_back(ForkChild([&]() -> int {
      ChildStore store;
      if (!store.Open(path)) return 255;
      int granted_count = 0;
      for (int i = 0; i < kAttempts; ++i) {
        bool granted = false;
        int64_t count = 0;
        if (Status s = store.repo->TryReserveExploration(workload, std::nullopt, &granted, &count);
            !s.ok()) {
          Fail(s);
          return 255;
        }
        granted_count += granted ? 1 : 0;
      }
      return granted_count;  // The exit code carries the answer (<= kAttempts).
    }));
  }
  int total = 0;
  for (const pid_t pid : children) {
    const int granted = WaitChild(pid);
    ASSERT_LE(granted, kAttempts);
    total += granted;
  }
  EXPECT_EQ(total, kCap);
  auto repo = OpenRepository(path);
  WorkloadRow row;
  ASSERT_TRUE(repo->GetWorkload(workload, &row).ok());
  EXPECT_EQ(row.explorations, kCap);
}

// A batch of 20 plans, each with two triggers and a kernel, all tagged with `tag`.
PublishBatch TaggedBatch(EnvironmentRowId env, const std::string& tag, uint64_t base) {
  PublishBatch batch{.environment_id = env};
  for (uint64_t i = 0; i < 20; ++i) {
    NewPlan plan = SamplePlan(base + i, /*first_op=*/3, tag);
    plan.plan_blob.resize(2000, 0x11);  // Several pages per batch.
    batch.plans.push_back({plan,
                           {OnOps(tag + "-a"), OnSync()},
                           {SampleKernel(tag + "-kernel-" + std::to_string(i))}});
  }
  return batch;
}

class SqliteKill : public test::RepositoryFixture {
 protected:
  // The database and its environment exist; the children and the checks open their own
  // connections.
  void SetUp() override {
    RepositoryFixture::SetUp();
    repo_.reset();
  }

  // Plans, triggers and kernels present for `tag`.
  std::array<int64_t, 3> Present(RawDb& raw, const std::string& tag) {
    const std::string plans = "(SELECT id FROM plans WHERE origin = '" + tag + "')";
    return {raw.Int("SELECT count(*) FROM plans WHERE origin = '" + tag + "'"),
            raw.Int("SELECT count(*) FROM triggers WHERE plan_id IN " + plans),
            raw.Int("SELECT count(*) FROM kernels WHERE plan_id IN " + plans)};
  }
};

TEST_F(SqliteKill, SigkillInsideThePublishTransactionLeavesNoTrace) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t pid = ForkChild([&]() -> int {
    close(ready[0]);
    ChildStore store;
    if (!store.Open(path_)) return 1;
    store.repo->SetPublishHookForTesting([&](size_t i) {
      if (i != 10) return;
      const char byte = 'x';
      (void)!write(ready[1], &byte, 1);  // Half the batch is written, uncommitted.
      std::this_thread::sleep_for(std::chrono::seconds(30));
    });
    PublishResult result;
    store.repo->Publish(TaggedBatch(store.env, "killed", 0), &result);
    return 3;  // Not reached: killed in the hook.
  });
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1) << "the child never reached the middle of the batch";
  close(ready[0]);
  EXPECT_EQ(KillChild(pid), kKilledBySignal + SIGKILL);

  {
    RawDb raw(path_);
    EXPECT_EQ(raw.Text("PRAGMA integrity_check"), "ok");
    EXPECT_EQ(Present(raw, "killed"), (std::array<int64_t, 3>{0, 0, 0}));
  }
  // The store carries on: the same batch publishes whole afterwards.
  auto repo = OpenRepository(path_);
  PublishResult result;
  ASSERT_TRUE(repo->Publish(TaggedBatch(env_, "killed", 0), &result).ok());
  RawDb raw(path_);
  EXPECT_EQ(Present(raw, "killed"), (std::array<int64_t, 3>{20, 40, 20}));
}

TEST_F(SqliteKill, SigkillAtRandomTimesLeavesEveryBatchWholeOrAbsent) {
  constexpr int kRounds = 12;
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> delay_ms(0, 90);
  int whole = 0;
  for (int r = 0; r < kRounds; ++r) {
    const std::string tag = "batch-" + std::to_string(r);
    const pid_t pid = ForkChild([&]() -> int {
      ChildStore store;
      if (!store.Open(path_)) return 1;
      store.repo->SetPublishHookForTesting(
          [](size_t) { std::this_thread::sleep_for(std::chrono::milliseconds(2)); });
      PublishResult result;
      const Status s = store.repo->Publish(TaggedBatch(store.env, tag, 100 * (r + 1)), &result);
      return s.ok() ? 0 : Fail(s);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    const int exit = KillChild(pid);
    EXPECT_TRUE(exit == 0 || exit == kKilledBySignal + SIGKILL) << exit;

    RawDb raw(path_);
    ASSERT_EQ(raw.Text("PRAGMA integrity_check"), "ok") << tag;
    const std::array<int64_t, 3> present = Present(raw, tag);
    const bool absent = present == std::array<int64_t, 3>{0, 0, 0};
    const bool complete = present == std::array<int64_t, 3>{20, 40, 20};
    EXPECT_TRUE(absent || complete) << tag << ": " << present[0] << " plans, " << present[1]
                                    << " triggers, " << present[2] << " kernels";
    if (exit == 0) {
      EXPECT_TRUE(complete) << tag;
    }
    whole += complete ? 1 : 0;
  }
  RecordProperty("whole_batches", whole);
  auto repo = OpenRepository(path_);
  LoadedPlans loaded;
  ASSERT_TRUE(repo->LoadPlansByFirstOp(env_, 3, &loaded).ok());
  EXPECT_EQ(loaded.plans.size(), static_cast<size_t>(20 * whole));
  EXPECT_EQ(loaded.quarantined, 0u);
}

}  // namespace
}  // namespace ember
