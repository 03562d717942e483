// The CPU backend's caching allocator (engine/runtime/cpu/buffer_cache.h): size classes, reuse
// of a freed buffer, the cap, and a repeated program that no longer faults pages in.
#include "engine/runtime/cpu/buffer_cache.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <vector>

#include "engine/ir/builders.h"
#include "tests/runtime/cpu/cpu_test_util.h"

namespace ember::cpu {
namespace {

TEST(CpuBufferCache, SizeClassesRoundUpByAtMostAQuarter) {
  EXPECT_EQ(BufferCache::ClassOf(0), 64u);
  EXPECT_EQ(BufferCache::ClassOf(64), 64u);
  EXPECT_EQ(BufferCache::ClassOf(65), 80u);  // 64 + 16
  EXPECT_EQ(BufferCache::ClassOf(4096), 4096u);
  EXPECT_EQ(BufferCache::ClassOf(4097), 5120u);
  EXPECT_EQ(BufferCache::ClassOf(1 << 20), size_t{1} << 20);
  for (size_t bytes = 1; bytes < (size_t{1} << 24); bytes = bytes * 3 / 2 + 1) {
    const size_t c = BufferCache::ClassOf(bytes);
    EXPECT_GE(c, bytes);
    EXPECT_LE(c, std::max<size_t>(64, bytes + bytes / 4)) << bytes;
    EXPECT_EQ(BufferCache::ClassOf(c), c) << "a class is its own class";
  }
}

#if !defined(__SANITIZE_ADDRESS__)
TEST(CpuBufferCache, AFreedBufferIsHandedOutAgain) {
  BufferCache cache;
  size_t capacity = 0;
  std::byte* first = cache.Allocate(10000, &capacity);
  EXPECT_EQ(capacity, BufferCache::ClassOf(10000));
  cache.Release(first, capacity);
  EXPECT_EQ(cache.stats().cached_bytes, capacity);
  size_t again = 0;
  std::byte* second = cache.Allocate(9000, &again);  // the same class
  EXPECT_EQ(second, first);
  EXPECT_EQ(again, capacity);
  EXPECT_EQ(cache.stats().reused, 1u);
  EXPECT_EQ(cache.stats().cached_bytes, 0u);
  size_t other = 0;
  std::byte* third = cache.Allocate(100, &other);  // another class: new memory
  EXPECT_NE(third, first);
  cache.Release(second, again);
  cache.Release(third, other);
  cache.Trim();
  EXPECT_EQ(cache.stats().cached_bytes, 0u);
}

TEST(CpuBufferCache, NoMoreThanTheCapIsKept) {
  BufferCache cache;
  const size_t big = BufferCache::kMaxCachedBytes / 2 + 4096;
  size_t c1 = 0, c2 = 0;
  std::byte* a = cache.Allocate(big, &c1);
  std::byte* b = cache.Allocate(big, &c2);
  cache.Release(a, c1);
  cache.Release(b, c2);  // over the cap: returned to the system
  EXPECT_EQ(cache.stats().cached_bytes, c1);
  cache.Trim();
}

// A program repeated on the same shapes: after the first runs, every buffer it allocates is a
// cached one, already faulted in, so the steady state takes (almost) no page faults, where
// fresh 1 MiB buffers would fault 256 pages each.
TEST(CpuBufferCache, ARepeatedProgramFaultsNoPagesInItsSteadyState) {
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer maps shadow memory for every access to memory it has not seen, which the
  // kernel counts as minor faults: they say nothing about the cache.
  GTEST_SKIP() << "page faults are ThreadSanitizer's own under TSan";
#endif
  testing::Harness h;
  const std::vector<double> values(512 * 512, 0.5);
  auto step = [&] {
    const TensorIr a = h.Input({512, 512}, DType::kF32, values);
    const TensorIr b = h.Exec(ir::Unary(OpKind::kExp, a, h.Output({512, 512})));
    const TensorIr c = h.Exec(ir::Binary(OpKind::kMul, b, a, h.Output({512, 512})));
    h.handles().Remove(a.id);
    h.handles().Remove(b.id);
    h.handles().Remove(c.id);
  };
  for (int i = 0; i < 3; ++i) step();
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  for (int i = 0; i < 20; ++i) step();
  getrusage(RUSAGE_SELF, &after);
  // 20 steps x 4 fresh MiB would be 20480 faults.
  EXPECT_LT(after.ru_minflt - before.ru_minflt, 200) << "minor page faults in 20 steps";
}
#endif

}  // namespace
}  // namespace ember::cpu
