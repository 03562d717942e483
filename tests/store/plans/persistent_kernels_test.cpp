// Compiled kernels in the plan database and its shared tier (Note [Stored kernels],
// store/persistent_kernels.h), through PersistentPlans as the engine drives it, with no GPU: a
// kernel binary is bytes here. A new plan's kernels commit with it (a process killed before
// that leaves neither), a later process loads them, a sibling's compile is waited for instead
// of repeated, a damaged row is never returned, and an untrusted file holds none.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/log.h"
#include "store/persistent_plans.h"
#include "tests/store/one_op_plans.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::RawDb;
using sqlite_test::TempDir;
using test::FirstOp;
using test::ForkChild;
using test::PlanStartingWith;
using test::SampleEnvironment;
using test::WaitChild;
using Outcome = KernelStore::Lookup::Outcome;

const KernelBinaryKey kKey{
    .hash = 0x1234'5678'9abc'def0, .arch = "sm_90", .compiler = "nvrtc-13.0"};
const KernelSource kSource{.name = "ember_k",
                           .source = "extern \"C\" __global__ void ember_k() {}"};

std::vector<char> Binary(char fill = 'b') {
  std::vector<char> bytes(512, fill);
  bytes[0] = '\x7f';
  return bytes;
}

class PersistentKernelsTest : public testing::Test {
 protected:
  std::unique_ptr<PersistentPlans> Open(bool shm = false, uint32_t wait_ms = 1000,
                                        bool allow_shared_writable = false, bool prefetch = false) {
    std::unique_ptr<PersistentPlans> plans;
    const Status s = PersistentPlans::Open({.path = path_,
                                            .environment = SampleEnvironment(),
                                            .workload = "w",
                                            .allow_shared_writable = allow_shared_writable,
                                            .shm = shm,
                                            .shm_bytes = 1 << 20,
                                            .shm_wait_ms = wait_ms,
                                            .prefetch_kernels = prefetch},
                                           &plans);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return plans;
  }

  // A new plan (id 0) found and run, its run compiling kKey.
  static void FindAndRun(PersistentPlans& plans, KernelStore& kernels) {
    plans.OnPlanAdded(0, PlanStartingWith(OpKind::kExp), 1.0);
    plans.OnPlanRunning(0);
    EXPECT_EQ(kernels.Load(kKey).outcome, Outcome::kMissing);
    kernels.Save(kKey, Binary(), kSource, "-arch=sm_90", false);
    plans.OnPlanRan(0);
  }

  // The child `child` died of SIGKILL and the database holds no plan and no kernel.
  void ExpectKilledLeavingNeither(pid_t child) {
    EXPECT_EQ(WaitChild(child), test::kKilledBySignal + SIGKILL);
    RawDb raw(path_);
    EXPECT_EQ(raw.Int("SELECT count(*) FROM plans"), 0);
    EXPECT_EQ(raw.Int("SELECT count(*) FROM kernels"), 0);
  }

  TempDir dir_;
  const std::string path_ = dir_.File("plans.db");
};

TEST_F(PersistentKernelsTest, ANewPlansKernelsCommitWithItAndAFreshProcessLoadsThem) {
  {
    auto plans = Open();
    KernelStore* kernels = plans->AttachKernels();
    ASSERT_NE(kernels, nullptr);
    FindAndRun(*plans, *kernels);
    plans->Close();
  }
  {
    RawDb raw(path_);
    EXPECT_EQ(raw.Int("SELECT count(*) FROM plans"), 1);
    EXPECT_EQ(raw.Int("SELECT count(*) FROM kernels"), 1);
    EXPECT_EQ(raw.Int("SELECT count(*) FROM plan_kernels JOIN plans ON plans.id = plan_id"), 1);
    EXPECT_EQ(raw.Text("SELECT name FROM kernels"), "ember_k");
    EXPECT_EQ(raw.Text("SELECT options FROM kernels"), "-arch=sm_90");
    EXPECT_EQ(raw.Text("SELECT source FROM kernels"), kSource.source);
  }
  auto warm = Open();
  KernelStore::Lookup found = warm->AttachKernels()->Load(kKey);
  ASSERT_EQ(found.outcome, Outcome::kFound);
  EXPECT_EQ(found.tier, KernelStore::Tier::kSqlite);
  EXPECT_EQ(found.binary, Binary());
  // Another GPU or toolkit never finds it.
  KernelBinaryKey other = kKey;
  other.arch = "sm_80";
  EXPECT_EQ(warm->AttachKernels()->Load(other).outcome, Outcome::kMissing);
  other = kKey;
  other.compiler = "nvrtc-13.1";
  EXPECT_EQ(warm->AttachKernels()->Load(other).outcome, Outcome::kMissing);
}

// A second plan whose run uses the kernel the first one compiled (from memory, as the kernel
// cache reports it, and from the database in a fresh process) is linked to it, so evicting the
// first plan does not orphan a kernel the second still needs. A plan's later runs add nothing.
TEST_F(PersistentKernelsTest, APlanThatUsesAnotherPlansKernelIsLinkedToIt) {
  {
    auto plans = Open();
    KernelStore* kernels = plans->AttachKernels();
    FindAndRun(*plans, *kernels);
    plans->OnPlanAdded(1, PlanStartingWith(OpKind::kLog), 1.0);
    plans->OnPlanRunning(1);
    kernels->Used(kKey);  // a memory hit: compiled in plan 0's run
    kernels->Used(kKey);  // the second launch in the same run links nothing more
    plans->OnPlanRan(1);
    plans->OnPlanRunning(0);  // a later run of a published plan
    kernels->Used(kKey);
    plans->OnPlanRan(0);
    plans->Close();
  }
  {
    auto plans = Open();
    KernelStore* kernels = plans->AttachKernels();
    plans->OnPlanAdded(0, PlanStartingWith(OpKind::kSqrt), 1.0);
    plans->OnPlanRunning(0);
    ASSERT_EQ(kernels->Load(kKey).outcome, Outcome::kFound);
    kernels->Used(kKey);  // what the kernel cache does with a binary it loaded
    plans->OnPlanRan(0);
    plans->Close();
  }
  RawDb raw(path_);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM plans"), 3);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM kernels"), 1);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM plan_kernels"), 3);
}

// SIGKILL after the kernel compiled but before the plan's run ended: the plan was not
// published, and its kernel is not in the database either (neither or both).
TEST_F(PersistentKernelsTest, AProcessKilledBeforeItsPlanRanLeavesNeitherPlanNorKernel) {
  const pid_t child = ForkChild([&] {
    auto plans = Open();
    KernelStore* kernels = plans->AttachKernels();
    plans->OnPlanAdded(0, PlanStartingWith(OpKind::kExp), 1.0);
    plans->OnPlanRunning(0);
    kernels->Load(kKey);
    kernels->Save(kKey, Binary(), kSource, "", false);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the writer had its chance
    raise(SIGKILL);
    return 0;
  });
  ExpectKilledLeavingNeither(child);
}

// Killed inside the publication transaction (after the plan row, before the commit): neither.
TEST_F(PersistentKernelsTest, AProcessKilledInsideThePublicationLeavesNeither) {
  const pid_t child = ForkChild([&] {
    std::unique_ptr<PlanRepository> repo = test::OpenRepository(path_);
    EnvironmentRowId env = 0;
    if (!repo->EnsureEnvironment(SampleEnvironment(), &env).ok()) return 1;
    PublishBatch batch{.environment_id = env};
    NewKernel kernel{.key = KernelRowKey(kKey), .binary = Blob(512, 7)};
    batch.plans.push_back({sqlite_test::SamplePlan(1), {}, {kernel}});
    repo->SetPublishHookForTesting([](size_t) { raise(SIGKILL); });
    PublishResult result;
    (void)repo->Publish(batch, &result);
    return 0;
  });
  ExpectKilledLeavingNeither(child);
}

TEST_F(PersistentKernelsTest, AKernelCompiledLaterForALoadedPlanLinksToItsRow) {
  {
    auto plans = Open();
    plans->AttachKernels();
    plans->OnPlanAdded(0, PlanStartingWith(OpKind::kExp), 1.0);
    plans->OnPlanRunning(0);
    plans->OnPlanRan(0);
    plans->Close();
  }
  auto plans = Open();
  KernelStore* kernels = plans->AttachKernels();
  std::vector<PlanId> added;
  plans->Load(FirstOp(OpKind::kExp), [&](ExecutionPlan) {
    added.push_back(7);
    return PlanId{7};
  });
  ASSERT_EQ(added.size(), 1u);
  plans->OnPlanRunning(7);
  EXPECT_EQ(kernels->Load(kKey).outcome, Outcome::kMissing);
  kernels->Save(kKey, Binary(), kSource, "", false);
  plans->OnPlanRan(7);
  // A kernel outside any plan's run (an unfused op's) is stored, linked to none.
  KernelBinaryKey loose = kKey;
  loose.hash += 1;
  kernels->Save(loose, Binary('c'), kSource, "", false);
  plans->Flush();
  RawDb raw(path_);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM kernels"), 2);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM plan_kernels"), 1);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM kernels WHERE plan_id IS NULL"), 1);
}

TEST_F(PersistentKernelsTest, ADamagedRowIsNeverReturnedAndARebuildReplacesIt) {
  {
    auto plans = Open();
    FindAndRun(*plans, *plans->AttachKernels());
    plans->Close();
  }
  RawDb(path_).Exec("UPDATE kernels SET binary = X'7f00112233'");
  auto plans = Open();
  KernelStore* kernels = plans->AttachKernels();
  ScopedLogCapture log(LogLevel::kBasic);
  EXPECT_EQ(kernels->Load(kKey).outcome, Outcome::kDamaged);
  kernels->Save(kKey, Binary('r'), kSource, "", false);
  plans->Flush();
  KernelStore::Lookup again = kernels->Load(kKey);
  ASSERT_EQ(again.outcome, Outcome::kFound);
  EXPECT_EQ(again.binary, Binary('r'));
}

TEST_F(PersistentKernelsTest, ReplaceOverwritesABinaryTheDriverRefused) {
  {
    auto plans = Open();
    FindAndRun(*plans, *plans->AttachKernels());
    plans->Close();
  }
  auto plans = Open();
  KernelStore* kernels = plans->AttachKernels();
  ASSERT_EQ(kernels->Load(kKey).outcome, Outcome::kFound);
  kernels->Save(kKey, Binary('n'), kSource, "", /*replace=*/true);
  plans->Flush();
  RawDb raw(path_);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM kernels"), 1);
  EXPECT_EQ(kernels->Load(kKey).binary, Binary('n'));
}

TEST_F(PersistentKernelsTest, TheSharedTierServesABinaryBeforeItsRowIsCommitted) {
  auto first = Open(/*shm=*/true);
  auto second = Open(/*shm=*/true);
  FindAndRun(*first, *first->AttachKernels());
  KernelStore::Lookup found = second->AttachKernels()->Load(kKey);
  ASSERT_EQ(found.outcome, Outcome::kFound);
  EXPECT_EQ(found.tier, KernelStore::Tier::kShm);
  EXPECT_EQ(found.binary, Binary());
}

// A sibling compiling the kernel holds its claim; this process waits for the binary instead of
// compiling it too.
TEST_F(PersistentKernelsTest, ASiblingsCompileIsWaitedForNotRepeated) {
  { auto create = Open(/*shm=*/true); }
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = ForkChild([&] {
    auto plans = Open(/*shm=*/true);
    KernelStore* kernels = plans->AttachKernels();
    if (kernels->Load(kKey).outcome != Outcome::kMissing) return 1;  // claimed now
    const char byte = 1;
    if (write(ready[1], &byte, 1) != 1) return 2;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // "compiling"
    kernels->Save(kKey, Binary('s'), kSource, "", false);
    plans->Close();
    return 0;
  });
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  auto plans = Open(/*shm=*/true, /*wait_ms=*/10000);
  const auto start = std::chrono::steady_clock::now();
  KernelStore::Lookup found = plans->AttachKernels()->Load(kKey);
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(WaitChild(child), 0);
  ASSERT_EQ(found.outcome, Outcome::kFound);
  EXPECT_EQ(found.tier, KernelStore::Tier::kShm);
  EXPECT_EQ(found.binary, Binary('s'));
  EXPECT_LT(waited, std::chrono::seconds(9));  // it woke on the publication, not the timeout
  close(ready[0]);
  close(ready[1]);
}

// allow_shared_writable on a group-writable file: plans are served, kernels are neither
// loaded from it nor stored in it.
TEST_F(PersistentKernelsTest, AFileOthersCanWriteHoldsNoKernels) {
  {
    auto plans = Open();
    FindAndRun(*plans, *plans->AttachKernels());
    plans->Close();
  }
  ASSERT_EQ(chmod(path_.c_str(), 0664), 0);
  ScopedLogCapture log(LogLevel::kBasic);
  auto plans = Open(/*shm=*/false, 1000, /*allow_shared_writable=*/true);
  KernelStore* kernels = plans->AttachKernels();
  EXPECT_EQ(kernels->Load(kKey).outcome, Outcome::kMissing);
  KernelBinaryKey fresh = kKey;
  fresh.hash += 9;
  kernels->Save(fresh, Binary(), kSource, "", false);
  plans->Flush();
  EXPECT_EQ(RawDb(path_).Int("SELECT count(*) FROM kernels"), 1);
  ASSERT_FALSE(log.messages().empty());
  EXPECT_THAT(log.messages()[0], testing::HasSubstr("compiled kernels are neither loaded"));
}

// Note [Prefetched kernels]: a warm GPU start reads the kernels of the plans its workload ran
// when the database opens, so the first launches ask no query; kernels of plans the workload
// never ran are not read, and a process that asks for no prefetch reads none.
TEST_F(PersistentKernelsTest, AWarmOpenHoldsTheKernelsOfThePlansItsWorkloadRan) {
  const KernelBinaryKey unused_key{
      .hash = 0x0fed'cba9'8765'4321, .arch = "sm_90", .compiler = "nvrtc-13.0"};
  {
    auto plans = Open();
    KernelStore* kernels = plans->AttachKernels();
    FindAndRun(*plans, *kernels);  // plan 0 and kKey
    plans->OnHit(0);               // the workload ran plan 0 (plan_usage)
    plans->OnPlanAdded(1, PlanStartingWith(OpKind::kLog), 1.0);  // never hit
    plans->OnPlanRunning(1);
    EXPECT_EQ(kernels->Load(unused_key).outcome, Outcome::kMissing);
    kernels->Save(unused_key, Binary('u'), kSource, "-arch=sm_90", false);
    plans->OnPlanRan(1);
    plans->Close();
  }
  ASSERT_EQ(RawDb(path_).Int("SELECT count(*) FROM kernels"), 2);
  {
    auto cold_reader = Open();  // no prefetch asked
    EXPECT_EQ(dynamic_cast<PersistentKernels*>(cold_reader->AttachKernels())->prefetched(), 0u);
  }
  auto warm = Open(/*shm=*/false, 1000, false, /*prefetch=*/true);
  auto* kernels = dynamic_cast<PersistentKernels*>(warm->AttachKernels());
  ASSERT_NE(kernels, nullptr);
  EXPECT_EQ(kernels->prefetched(), 1u) << "only the kernel of the plan the workload ran";
  // The rows go away: what the prefetch holds is answered without a read.
  RawDb(path_).Exec("DELETE FROM kernels");
  KernelStore::Lookup found = kernels->Load(kKey);
  ASSERT_EQ(found.outcome, Outcome::kFound);
  EXPECT_EQ(found.tier, KernelStore::Tier::kSqlite);
  EXPECT_EQ(found.binary, Binary());
  EXPECT_EQ(kernels->prefetched(), 0u) << "given once: the backend keeps what it loaded";
  EXPECT_EQ(kernels->Load(unused_key).outcome, Outcome::kMissing);
}

TEST_F(PersistentKernelsTest, ADamagedRowIsLeftOutOfThePrefetch) {
  {
    auto plans = Open();
    KernelStore* kernels = plans->AttachKernels();
    FindAndRun(*plans, *kernels);
    plans->OnHit(0);
    plans->Close();
  }
  RawDb(path_).Exec("UPDATE kernels SET binary = X'7f00112233'");
  auto warm = Open(/*shm=*/false, 1000, false, /*prefetch=*/true);
  auto* kernels = dynamic_cast<PersistentKernels*>(warm->AttachKernels());
  EXPECT_EQ(kernels->prefetched(), 0u);
  EXPECT_EQ(kernels->Load(kKey).outcome, Outcome::kDamaged) << "the lookup still says why";
}

}  // namespace
}  // namespace ember
