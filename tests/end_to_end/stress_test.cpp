// The cross-thread stress test (issue 20): engine processes, each with eight threads that
// register ops, hand unfinished tensors to each other, and read or drop them on the thread
// that took them, on one plan database with the background writer and the shared-memory tier
// on. Every value read is checked against a reference computed here in plain C++; the database
// passes `verify` afterwards and a later process starts warm from it. Run under TSan by
// tests/run-sanitizers.sh with the rest of the suite (the children are the same binary).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <ember/ember.h>

#include "store/admin/plan_verification.h"
#include "store/repository/plan_repository.h"
#include "store/shm/shared_segment.h"
#include "tests/common/process.h"
#include "tests/common/temp_dir.h"
#include "tests/end_to_end/engine_child.h"

namespace ember {
namespace {

constexpr int kThreads = 8;
constexpr int kRoundsPerThread = 60;

// A tensor some thread made, not yet computed, and the values it must have.
struct Handoff {
  Tensor tensor;
  std::vector<float> expected;
};

class Mailbox {
 public:
  void Put(Handoff h) {
    std::lock_guard lock(mu_);
    box_.push_back(std::move(h));
    cv_.notify_one();
  }
  // A handoff if there is one now.
  bool TryTake(Handoff* out) {
    std::lock_guard lock(mu_);
    if (box_.empty()) return false;
    *out = std::move(box_.front());
    box_.pop_front();
    return true;
  }
  // A handoff, waiting for one; false once every producer is done and the box is empty.
  bool Take(Handoff* out) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !box_.empty() || producers_ == 0; });
    if (box_.empty()) return false;
    *out = std::move(box_.front());
    box_.pop_front();
    return true;
  }
  void ProducerDone() {
    std::lock_guard lock(mu_);
    --producers_;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Handoff> box_;
  int producers_ = kThreads;
};

bool Close(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return false;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::abs(got[i] - want[i]) > 1e-4f * (1.0f + std::abs(want[i]))) return false;
  }
  return true;
}

// One thread's work: expressions on a few shapes (so that threads and processes meet the same
// segments), half of them handed off, and every handoff taken from the box read or dropped.
int Worker(int index, Mailbox& box) {
  std::mt19937 rng(static_cast<unsigned>(index * 7919 + 1));
  const int64_t sizes[] = {4, 8, 16};
  int wrong = 0;
  for (int round = 0; round < kRoundsPerThread; ++round) {
    const int64_t rows = sizes[rng() % 3];
    const int64_t cols = sizes[rng() % 3];
    const size_t n = static_cast<size_t>(rows * cols);
    std::vector<float> a(n), b(n), c(n), want(n);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (size_t i = 0; i < n; ++i) {
      a[i] = value(rng);
      b[i] = value(rng);
      c[i] = value(rng);
      want[i] = std::tanh(a[i] * b[i] + c[i] * 2.0f);
    }
    Tensor ta = Tensor::FromVector(a, {rows, cols});
    Tensor tb = Tensor::FromVector(b, {rows, cols});
    Tensor tc = Tensor::FromVector(c, {rows, cols});
    Tensor out = (ta * tb + tc * 2.0).Tanh();
    if (round % 2 == 0) {
      box.Put({std::move(out), std::move(want)});
    } else if (!Close(out.ToVector<float>(), want)) {
      ++wrong;
    }
    // Take one handoff of another thread's (or this one's): read it here, or drop it here.
    Handoff h;
    if (round % 3 != 2) continue;
    if (box.TryTake(&h)) {
      if (round % 2 == 0) {
        if (!Close(h.tensor.ToVector<float>(), h.expected)) ++wrong;
      } else {
        h.tensor = Tensor();  // dropped on a foreign thread, never read
      }
    }
  }
  box.ProducerDone();
  Handoff h;
  while (box.Take(&h)) {
    if (!Close(h.tensor.ToVector<float>(), h.expected)) ++wrong;
  }
  return wrong;
}

// --- the child -------------------------------------------------------------------------------

TEST(DISABLED_StressChild, Run) {
  Mailbox box;
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] { wrong[i] = Worker(i, box); });
  }
  for (std::thread& t : threads) t.join();
  Sync();
  FlushPlans();
  const Stats s = GetStats();
  int total_wrong = 0;
  for (int w : wrong) total_wrong += w;
  std::ofstream out(std::getenv("EMBER_TEST_OUT"));
  out << "wrong " << total_wrong << "\n"
      << "explorations " << s.explorations << "\n"
      << "cache_hits " << s.cache_hits << "\n"
      << "plans_published " << s.plans_published << "\n"
      << "plans_loaded_from_db " << s.plans_loaded_from_db << "\n"
      << "plans_loaded_from_shm " << s.plans_loaded_from_shm << "\n";
}

// --- the parent ------------------------------------------------------------------------------

TEST(Stress, EightThreadsInEachOfTwoProcessesComputeRightOnOneDatabaseWithTheSharedTier) {
  test::TempDir dir;
  const std::string db = dir.path().string() + "/plans.db";
  const std::vector<std::string> base = {"EMBER_PLAN_DB=" + db, "EMBER_SHM=on"};
  std::vector<pid_t> pids;
  std::vector<std::string> outs;
  for (int p = 0; p < 2; ++p) {
    outs.push_back(dir.path().string() + "/stress-" + std::to_string(p) + ".txt");
    std::vector<std::string> env = base;
    env.push_back("EMBER_TEST_OUT=" + outs.back());
    pids.push_back(test::SpawnTestChild("DISABLED_StressChild.Run", env));
  }
  double published = 0;
  double cold_explorations = 0;
  for (size_t p = 0; p < pids.size(); ++p) {
    ASSERT_EQ(test::WaitChild(pids[p]), 0) << "stress child " << p;
    const auto report = test::ReadReport(outs[p]);
    ASSERT_FALSE(report.empty());
    EXPECT_EQ(report.at("wrong"), 0) << "stress child " << p << " read wrong values";
    EXPECT_GT(report.at("cache_hits"), 0);
    published += report.at("plans_published");
    cold_explorations += report.at("explorations");
  }
  EXPECT_GT(published, 0);

  std::unique_ptr<PlanRepository> repo;
  ASSERT_TRUE(PlanRepository::Open({.path = db, .read_only = true}, &repo).ok());
  VerificationReport verified;
  ASSERT_TRUE(VerifyPlanDatabase(repo->sql(), &verified).ok());
  EXPECT_TRUE(verified.healthy());
  repo.reset();

  // A later process, without the tier, starts warm from what the two stored. Where its threads
  // interleave differently it meets segments the two never did (a read on a foreign thread
  // cuts its home stream's segment there), so it still explores: on this 2-core VM 8 to 37
  // times (100 runs under load) where the two explored 39 to 54 each. Less than either was
  // true in most runs only (CI failed on it); less than the two together holds with a margin.
  outs.push_back(dir.path().string() + "/stress-warm.txt");
  const pid_t warm = test::SpawnTestChild("DISABLED_StressChild.Run",
                                          {"EMBER_PLAN_DB=" + db, "EMBER_TEST_OUT=" + outs.back()});
  ASSERT_EQ(test::WaitChild(warm), 0);
  const auto report = test::ReadReport(outs.back());
  EXPECT_EQ(report.at("wrong"), 0);
  EXPECT_LT(report.at("explorations"), cold_explorations);
  EXPECT_GT(report.at("plans_loaded_from_db"), 0);
  SharedSegment::RemoveAll(db);
}

}  // namespace
}  // namespace ember
