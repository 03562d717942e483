#include "engine/python/deferred_release.h"

#include <mutex>
#include <utility>
#include <vector>

namespace ember::python {

namespace {

struct Release {
  void (*fn)(void*);
  void* arg;
};

// Note [Deferred releases].
struct ReleaseQueue {
  std::mutex mu;
  std::vector<Release> pending;
  bool scheduled = false;  // a pending call is on its way
  bool closed = false;     // the atexit hook ran: drop releases from now on
};

ReleaseQueue& Queue() {
  static auto* queue = new ReleaseQueue;  // never destroyed: see the Note
  return *queue;
}

int RunPendingCall(void*) {
  RunDeferredReleases();
  return 0;
}

void DeferRelease(Release release) {
  ReleaseQueue& q = Queue();
  std::lock_guard lock(q.mu);
  if (q.closed) return;
  q.pending.push_back(release);
  // Under the queue's lock: the atexit hook closes the queue under it too, so no pending call
  // is added once the interpreter may be finalizing. Py_AddPendingCall takes only its own lock.
  if (!q.scheduled) q.scheduled = Py_AddPendingCall(RunPendingCall, nullptr) == 0;
}

}  // namespace

std::shared_ptr<const void> DeferredOwner(void (*release)(void*), void* arg) {
  // The shared_ptr's control block is allocated here, with the GIL held: its deleter, which may
  // run anywhere, only queues.
  return std::shared_ptr<const void>(arg, [release](const void* p) {
    DeferRelease({release, const_cast<void*>(p)});
  });
}

void RunDeferredReleases() {
  ReleaseQueue& q = Queue();
  std::vector<Release> batch;
  {
    std::lock_guard lock(q.mu);
    q.scheduled = false;
    batch.swap(q.pending);
  }
  // Outside the queue's lock: a release may drop the last reference to another borrowed
  // tensor's memory, whose release queues again.
  for (const Release& r : batch) r.fn(r.arg);
}

void InstallDeferredReleases(py::module_& m) {
  (void)m;
  py::module_::import("atexit").attr("register")(py::cpp_function([] {
    RunDeferredReleases();
    ReleaseQueue& q = Queue();
    std::lock_guard lock(q.mu);
    q.closed = true;
    q.pending.clear();  // queued since the drain: dropped, as after closing
  }));
}

}  // namespace ember::python
