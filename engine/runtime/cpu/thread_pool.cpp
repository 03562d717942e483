#include "engine/runtime/cpu/thread_pool.h"

#include <algorithm>

#include "engine/core/check.h"

namespace ember::cpu {
namespace {

// Set on pool workers and on a caller while it runs a job: a nested ParallelFor runs inline.
thread_local bool in_parallel_region = false;

}  // namespace

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  workers_.reserve(threads - 1);
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutdown_ = true;
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
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [&] { return shutdown_ || (job_ != nullptr && generation_ != seen); });
    if (shutdown_) return;
    seen = generation_;
    Job& job = *job_;
    ++job.active_workers;
    lock.unlock();
    const int64_t ran = RunChunks(job);
    lock.lock();
    --job.active_workers;
    job.finished_chunks += ran;
    if (job.finished_chunks == job.chunks && job.active_workers == 0) done_cv_.notify_all();
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
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = &job;
    ++generation_;
  }
  work_cv_.notify_all();
  in_parallel_region = true;
  const int64_t ran = RunChunks(job);
  in_parallel_region = false;
  std::unique_lock<std::mutex> lock(mu_);
  job.finished_chunks += ran;
  done_cv_.wait(lock, [&] { return job.finished_chunks == job.chunks && job.active_workers == 0; });
  job_ = nullptr;
}

}  // namespace ember::cpu
