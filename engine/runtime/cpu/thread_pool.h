// ThreadPool: a fixed set of worker threads created once per CPU backend.
//
// ParallelFor(n, grain, fn) cuts [0, n) into chunks [k*grain, min((k+1)*grain, n)) and calls
// fn(begin, end) once per chunk. The chunk boundaries depend only on n and grain, never on
// the number of threads, so a kernel that combines per-chunk partial results in chunk order
// produces bit-identical output with 1 or N threads. Work of one chunk runs inline on the
// calling thread (small tensors pay no synchronization), and the caller works on chunks too.
//
// Threading: one ParallelFor at a time (the backend is called under its server's lock). A
// ParallelFor issued from inside a chunk runs inline, so kernels may nest without deadlock or
// oversubscription. fn must not throw.
//
// Note [Spinning workers]
// A step of a model runs one ParallelFor after another, each a few microseconds of work, and
// a sleeping worker costs a futex wake to start (the caller's notify) and another to report
// back (its notify of the waiting caller): on the 2-core VM of docs/BENCHMARKS.md the
// scheduler's wake-up path was a quarter of softmax's time at 2^16 elements (issue 47). So a
// worker that finishes a job watches for the next one for kSpin before it sleeps, and a caller
// whose chunks are done watches for the workers' for kSpin before it sleeps; the other side
// notifies only whoever is asleep. Who computes which chunk is unchanged (chunk boundaries
// depend on n and grain alone), so results are too; an idle pool sleeps after kSpin.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ember::cpu {

class ThreadPool {
 public:
  // threads <= 0: one per hardware core. threads == 1: no worker threads, all work inline.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Threads that run chunks, the caller included.
  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // REQUIRES: grain >= 1.
  void ParallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

 private:
  // One ParallelFor call. It lives on the caller's stack; workers reach it only through
  // `job_` under mu_, and the caller clears `job_` (under mu_) before returning, once no
  // worker is inside it.
  struct Job {
    const std::function<void(int64_t, int64_t)>* fn;
    int64_t n;
    int64_t grain;
    int64_t chunks;
    std::atomic<int64_t> next_chunk{0};
    int64_t finished_chunks = 0;  // guarded by mu_
    int active_workers = 0;       // guarded by mu_
    // Set (under mu_) once every chunk has run and no worker is inside: the caller watches it.
    std::atomic<bool> done{false};
  };

  void WorkerLoop();
  // Runs chunks of `job` until none are left; returns how many it ran.
  static int64_t RunChunks(Job& job);

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable work_cv_;  // workers wait for a new job or shutdown
  std::condition_variable done_cv_;  // the caller waits for its job to finish
  Job* job_ = nullptr;
  // Bumped per job (under mu_), so a worker joins each job at most once; read without mu_ by
  // spinning workers (Note [Spinning workers]).
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> shutdown_{false};  // written under mu_
  int sleeping_workers_ = 0;           // guarded by mu_
  bool caller_sleeping_ = false;       // guarded by mu_
};

}  // namespace ember::cpu
