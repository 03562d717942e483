#include "engine/runtime/cpu/thread_pool.h"

#include <atomic>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace ember::cpu {
namespace {

TEST(ThreadPool, VisitsEveryIndexExactlyOnce) {
  for (int threads : {1, 2, 4, 7}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.size(), threads);
    for (int64_t n : {0, 1, 5, 1000, 12345}) {
      std::vector<std::atomic<int>> hits(n);
      pool.ParallelFor(n, 17, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) hits[i].fetch_add(1);
      });
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << n << " " << i;
    }
  }
}

TEST(ThreadPool, ChunkBoundariesDependOnlyOnSizeAndGrain) {
  auto chunks = [](int threads) {
    ThreadPool pool(threads);
    std::mutex mu;
    std::set<std::pair<int64_t, int64_t>> seen;
    pool.ParallelFor(1003, 100, [&](int64_t begin, int64_t end) {
      std::lock_guard<std::mutex> lock(mu);
      seen.insert({begin, end});
    });
    return seen;
  };
  const auto one = chunks(1);
  EXPECT_EQ(one.size(), 11u);
  EXPECT_EQ(*one.rbegin(), (std::pair<int64_t, int64_t>{1000, 1003}));
  EXPECT_EQ(chunks(4), one);
}

TEST(ThreadPool, NestedParallelForRunsInline) {
  ThreadPool pool(4);
  std::atomic<int64_t> total{0};
  pool.ParallelFor(64, 1, [&](int64_t, int64_t) {
    pool.ParallelFor(100, 10, [&](int64_t begin, int64_t end) { total += end - begin; });
  });
  EXPECT_EQ(total.load(), 64 * 100);
}

TEST(ThreadPool, ManyBackToBackJobsStayConsistent) {
  ThreadPool pool(4);
  for (int round = 0; round < 2000; ++round) {
    std::atomic<int64_t> sum{0};
    pool.ParallelFor(round % 50 + 2, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) sum += i;
    });
    const int64_t n = round % 50 + 2;
    ASSERT_EQ(sum.load(), n * (n - 1) / 2);
  }
}

TEST(ThreadPool, ZeroThreadsMeansOnePerCore) {
  ThreadPool pool(0);
  EXPECT_GE(pool.size(), 1);
}

}  // namespace
}  // namespace ember::cpu
