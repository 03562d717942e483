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
  try {
    ScopedContext scope(*device_);
    for (Waiting& w : waiting) {
      if (w.done != nullptr) {
        EMBER_CU(cuEventSynchronize, w.done);
        EMBER_CU(cuEventDestroy, w.done);
      } else {
        EMBER_CU(cuStreamSynchronize, w.stream);
      }
    }
  } catch (const Error&) {
    // The driver is gone (process exit): nothing reads the memory any more.
  }
  // `waiting` goes here, and with it the owners.
}

void BorrowedOwners::Record(Waiting& w) {
  EMBER_CU(cuEventCreate, &w.done, CU_EVENT_DISABLE_TIMING);
  const CUresult recorded = Driver().cuEventRecord(w.done, w.stream);
  if (recorded != CUDA_SUCCESS) {
    Driver().cuEventDestroy(w.done);
    w.done = nullptr;
    throw CudaError(recorded, "cuEventRecord");
  }
}

void BorrowedOwners::Add(CUstream stream, std::shared_ptr<const void> owner, bool held) {
  std::shared_ptr<const void> now;  // released at the end, outside the lock
  {
    std::lock_guard lock(mutex_);
    Waiting w{.stream = stream, .owner = std::move(owner)};
    try {
      if (!held) {
        ScopedContext scope(*device_);
        Record(w);
      }
      waiting_.push_back(std::move(w));
    } catch (const Error&) {
      // No event: the stream is waited for here instead, since the owner must not go before
      // the device is done with the memory. A lost context (every call fails) runs nothing
      // more, and then the owner goes at once.
      WarnCu(Driver().cuStreamSynchronize(stream), "cuStreamSynchronize");
      now = std::move(w.owner);
    }
  }
  Collect();
}

void BorrowedOwners::Unhold(CUstream stream) {
  std::vector<std::shared_ptr<const void>> now;  // released at the end, outside the lock
  std::lock_guard lock(mutex_);
  bool any = false;
  for (const Waiting& w : waiting_) any |= w.stream == stream && w.done == nullptr;
  if (!any) return;
  try {
    ScopedContext scope(*device_);
    for (Waiting& w : waiting_) {
      if (w.stream == stream && w.done == nullptr) Record(w);
    }
  } catch (const Error&) {
    // As in Add: the host waits for the stream, and what waited for it goes.
    WarnCu(Driver().cuStreamSynchronize(stream), "cuStreamSynchronize");
    std::erase_if(waiting_, [&](Waiting& w) {
      if (w.stream != stream || w.done != nullptr) return false;
      now.push_back(std::move(w.owner));
      return true;
    });
  }
}

size_t BorrowedOwners::Collect() {
  std::vector<std::shared_ptr<const void>> finished;  // released at the end, outside the lock
  std::lock_guard lock(mutex_);
  if (waiting_.empty()) return 0;
  try {
    ScopedContext scope(*device_);
    std::erase_if(waiting_, [&](Waiting& w) {
      // Anything but "not ready" ends the wait: an error here is the context's, and a lost
      // context runs nothing more.
      if (w.done == nullptr || Driver().cuEventQuery(w.done) == CUDA_ERROR_NOT_READY) return false;
      WarnCu(Driver().cuEventDestroy(w.done), "cuEventDestroy");
      finished.push_back(std::move(w.owner));
      return true;
    });
  } catch (const Error&) {
    // No context to query in: the owners wait for the next Collect or the destructor.
  }
  return waiting_.size();
}

}  // namespace ember::cuda
