#include "engine/runtime/cuda/borrowed_owners.h"

#include <algorithm>
#include <utility>

#include "engine/runtime/cuda/driver_api.h"

namespace ember::cuda {

BorrowedOwners::~BorrowedOwners() {
  std::vector<Waiting> waiting;
  {
    std::lock_guard lock(mutex_);
    waiting.swap(waiting_);
  }
  if (waiting.empty() || streams_gone_) return;  // `waiting` goes, and the owners with it
  try {
    ScopedContext scope(*device_);
    for (Waiting& w : waiting) {
      // Each entry waits on its own: one that fails (a lost context) skips none of the rest.
      if (w.done != nullptr) {
        WarnCu(Driver().cuEventSynchronize(w.done), "cuEventSynchronize");
        WarnCu(Driver().cuEventDestroy(w.done), "cuEventDestroy");
      } else {
        WarnCu(Driver().cuStreamSynchronize(w.stream), "cuStreamSynchronize");
      }
    }
  } catch (...) {
    // No context to wait in (the driver is gone at process exit): nothing reads the memory.
  }
}

bool BorrowedOwners::TryRecord(Waiting& w) noexcept {
  if (w.held || w.done != nullptr) return false;
  try {
    CUevent event = nullptr;
    CUresult result = Driver().cuEventCreate(&event, CU_EVENT_DISABLE_TIMING);
    if (result == CUDA_SUCCESS) {
      result = Driver().cuEventRecord(event, w.stream);
      if (result == CUDA_SUCCESS) {
        w.done = event;
        return false;
      }
      Driver().cuEventDestroy(event);
    }
    return LosesContext(result);  // any other refusal: the next Collect records again
  } catch (...) {
    return false;
  }
}

bool BorrowedOwners::Finished(Waiting& w) noexcept {
  if (w.held) return false;
  if (w.done == nullptr) return TryRecord(w);
  try {
    const CUresult result = Driver().cuEventQuery(w.done);
    if (result != CUDA_SUCCESS && !LosesContext(result)) return false;  // not ready, or refused
    Driver().cuEventDestroy(w.done);
    w.done = nullptr;
    return true;
  } catch (...) {
    return false;
  }
}

void BorrowedOwners::Sweep(std::vector<std::shared_ptr<const void>>& out) noexcept {
  std::erase_if(waiting_, [&](Waiting& w) {
    if (!Finished(w)) return false;
    out.push_back(std::move(w.owner));  // reserved by the caller: no throw
    return true;
  });
}

void BorrowedOwners::Add(CUstream stream, std::shared_ptr<const void> owner) noexcept {
  try {
    std::lock_guard lock(mutex_);
    if (streams_gone_) return;  // nothing runs any more: `owner` goes on return, unlocked
    Waiting w{.stream = stream};
    w.held = std::find(held_streams_.begin(), held_streams_.end(), stream) != held_streams_.end();
    {
      ScopedContext scope(*device_);
      if (TryRecord(w)) return;  // the context is lost: `owner` goes
    }
    waiting_.reserve(waiting_.size() + 1);  // the one step that may throw, before any move
    w.owner = std::move(owner);
    waiting_.push_back(std::move(w));
    return;
  } catch (...) {
    // No room in the list or no context to record in.
  }
  // The host waits for the stream here instead, and the owner goes after it.
  try {
    WarnCu(Driver().cuStreamSynchronize(stream), "cuStreamSynchronize");
  } catch (...) {
  }
}

void BorrowedOwners::Hold(CUstream stream) {
  std::lock_guard lock(mutex_);
  if (std::find(held_streams_.begin(), held_streams_.end(), stream) == held_streams_.end()) {
    held_streams_.push_back(stream);
  }
}

void BorrowedOwners::Unhold(CUstream stream) noexcept {
  std::vector<std::shared_ptr<const void>> out;  // released after the lock
  try {
    std::lock_guard lock(mutex_);
    std::erase(held_streams_, stream);
    bool any = false;
    for (Waiting& w : waiting_) {
      if (w.stream != stream || !w.held) continue;
      w.held = false;
      any = true;
    }
    if (!any || streams_gone_) return;
    out.reserve(waiting_.size());
    ScopedContext scope(*device_);
    Sweep(out);  // records the events of the entries just let go
  } catch (...) {
    // Their events are recorded at the next Collect.
  }
}

void BorrowedOwners::StreamsGone() noexcept {
  std::vector<Waiting> gone;  // released after the lock
  {
    std::lock_guard lock(mutex_);
    streams_gone_ = true;
    held_streams_.clear();
    gone.swap(waiting_);
  }
  try {
    ScopedContext scope(*device_);
    for (const Waiting& w : gone) {
      if (w.done != nullptr) Driver().cuEventDestroy(w.done);
    }
  } catch (...) {
  }
}

size_t BorrowedOwners::Collect() noexcept {
  std::vector<std::shared_ptr<const void>> out;  // released after the lock
  size_t left = 0;
  try {
    std::lock_guard lock(mutex_);
    left = waiting_.size();
    if (left == 0) return 0;
    out.reserve(left);
    ScopedContext scope(*device_);
    Sweep(out);
    left = waiting_.size();
  } catch (...) {
    // No context to query in: the owners wait for the next Collect.
  }
  return left;
}

}  // namespace ember::cuda
