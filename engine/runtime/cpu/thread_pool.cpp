#include "engine/runtime/cpu/thread_pool.h"

#include <algorithm>
#include <chrono>

#include "engine/core/check.h"

namespace ember::cpu {
namespace {

// Set on pool workers and on a caller while it runs a job: a nested ParallelFor runs inline.
thread_local bool in_parallel_region = false;

// Note [Spinning workers] (thread_pool.h): how long either side watches before it sleeps. A
// model step's host work between two ParallelFors is a few to some tens of microseconds.
constexpr auto kSpin = std::chrono::microseconds(50);

// Calls `ready` until it holds or kSpin has passed; whether it held.
template <typename Ready>
bool SpinUntil(Ready&& ready) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0;; ++i) {
    if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    // The clock is read every 64 turns: a pause is tens of cycles, a clock read about as many.
    if ((i & 63) == 63 && std::chrono::steady_clock::now() >= deadline) return ready();
  }
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  workers_.reserve(threads - 1);
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutdown_.store(true, std::memory_order_release);
  }
  work_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

int64_t ThreadPool::RunChunks(Job& job) {
  int64_t ran = 0;
  for (;;) {
    const int64_t chunk = job.next_chunk.fetch_add(1, std::memory_order_relaxed);
    if (chunk >= job.chunks) return ran;
    const int64_t begin = chunk * job.grain;
    (*job.fn)(begin, std::min(job.n, begin + job.grain));
    ++ran;
  }
}

void ThreadPool::WorkerLoop() {
  in_parallel_region = true;
  uint64_t seen = 0;
  for (;;) {
    SpinUntil([&] {
      return generation_.load(std::memory_order_acquire) != seen ||
             shutdown_.load(std::memory_order_acquire);
    });
    std::unique_lock<std::mutex> lock(mu_);
    if (job_ == nullptr && generation_.load(std::memory_order_relaxed) != seen &&
        !shutdown_.load(std::memory_order_relaxed)) {
      // A job came and went while this worker watched (the caller ran every chunk): it is
      // still a busy stretch, so watch for the next one rather than sleep.
      seen = generation_.load(std::memory_order_relaxed);
      continue;
    }
    ++sleeping_workers_;  // the predicate below is checked under mu_: no wake-up is lost
    work_cv_.wait(lock, [&] {
      return shutdown_.load(std::memory_order_relaxed) ||
             (job_ != nullptr && generation_.load(std::memory_order_relaxed) != seen);
    });
    --sleeping_workers_;
    if (shutdown_.load(std::memory_order_relaxed)) return;
    seen = generation_.load(std::memory_order_relaxed);
    Job& job = *job_;
    ++job.active_workers;
    lock.unlock();
    const int64_t ran = RunChunks(job);
    lock.lock();
    --job.active_workers;
    job.finished_chunks += ran;
    if (job.finished_chunks == job.chunks && job.active_workers == 0) {
      job.done.store(true, std::memory_order_release);
      if (caller_sleeping_) done_cv_.notify_all();
    }
  }
}

void ThreadPool::ParallelFor(int64_t n, int64_t grain,
                             const std::function<void(int64_t, int64_t)>& fn) {
  EMBER_CHECK(grain >= 1, "grain must be positive");
  if (n <= 0) return;
  const int64_t chunks = (n + grain - 1) / grain;
  if (chunks == 1 || workers_.empty() || in_parallel_region) {
    for (int64_t begin = 0; begin < n; begin += grain) fn(begin, std::min(n, begin + grain));
    return;
  }
  Job job{.fn = &fn, .n = n, .grain = grain, .chunks = chunks};
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = &job;
    generation_.fetch_add(1, std::memory_order_release);
    wake = sleeping_workers_ > 0;  // the spinning ones see the generation change
  }
  if (wake) work_cv_.notify_all();
  in_parallel_region = true;
  const int64_t ran = RunChunks(job);
  in_parallel_region = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    job.finished_chunks += ran;
    if (job.finished_chunks == job.chunks && job.active_workers == 0) {
      job_ = nullptr;
      return;
    }
  }
  // The workers' chunks: watch, then sleep. `done` is set under mu_, so taking mu_ afterwards
  // waits for the worker that set it to leave `job` (it lives on this stack).
  SpinUntil([&] { return job.done.load(std::memory_order_acquire); });
  std::unique_lock<std::mutex> lock(mu_);
  caller_sleeping_ = true;
  done_cv_.wait(lock, [&] { return job.finished_chunks == job.chunks && job.active_workers == 0; });
  caller_sleeping_ = false;
  job_ = nullptr;
}

}  // namespace ember::cpu
