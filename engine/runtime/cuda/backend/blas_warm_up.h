// BlasWarmUp: cuBLASLt made ready beside the device's start instead of at the first matmul
// (issue 43: a warm GPU start at the floor). Loading libcublasLt (a 540 MB library: 40-60 ms
// from a warm page cache, 350-630 ms from a cold one), creating its handle and probing what its
// relu epilogue does with NaN and -0 (a product and a host sync) need no op of the program, so
// a thread of their own runs them while the context is created and the plan database opened.
// The first matmul takes the handle (waiting for it only if it is not made yet); the probe runs
// after the handle is handed over, on a second handle of its own, and the first matmul with a
// relu epilogue waits for it (running the generated kernel instead made the variant depend on
// timing, and cost a warm process a compile: MatmulEpilogues::BlasReluRule).
//
// Nothing here is needed for a correct result: when a step fails (no cuBLASLt, a lost
// context), TakeBlas and Relu return nothing and the backend does the work itself at the first
// matmul, where the failure is reported exactly as it was before this existed.
//
// Threading: the thread touches only what it was given (the allocator, which is thread-safe,
// and one stream, on which it queues only its own products) and holds no lock the op thread
// takes. The destructor asks the thread to stop after the step in progress (a dlopen cannot be
// interrupted) and joins it; so does the process's exit (CancelWarmUpsAtExit), since device
// servers are never destroyed.
#pragma once

#include <cuda.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "engine/runtime/cuda/cublaslt_api.h"
#include "engine/runtime/cuda/device_allocator.h"

namespace ember::cuda {

// What cuBLASLt's relu epilogue gave for relu(NaN), relu(2), relu(-3) (alpha 1) and relu(-0)
// (alpha -1 over a zero operand); MatmulEpilogues decides what they mean.
struct ReluProbeReadings {
  float nan_in = 0;
  float two = 0;
  float minus_three = 0;
  float minus_zero = 0;
};

// Runs the probe's two 1x4 products on `stream` with `blas` and waits for them (a host sync
// of `stream`). Throws ember::Error when a call fails.
ReluProbeReadings ProbeBlasRelu(BlasLt& blas, DeviceAllocator& allocator, CUstream stream);

class BlasWarmUp {
 public:
  // Starts loading cuBLASLt on a new thread.
  BlasWarmUp();
  ~BlasWarmUp();
  BlasWarmUp(const BlasWarmUp&) = delete;
  BlasWarmUp& operator=(const BlasWarmUp&) = delete;

  // The device's context exists: the thread goes on to create the handle on `allocator`'s
  // device and to probe the relu epilogue on `stream` (which must outlive this object).
  void Begin(std::shared_ptr<DeviceAllocator> allocator, CUstream stream);

  // Waits for the handle; the handle the thread created, or null (it failed, was never begun,
  // or was taken already).
  std::unique_ptr<BlasLt> TakeBlas();
  // Whether the thread has ended (the probe run, or given up).
  bool done();
  // The probe's readings once the thread has ended (never waits); nullopt while it runs, or
  // when the probe did not run (then done() is true).
  std::optional<ReluProbeReadings> Relu();
  // Waits for the thread to end.
  void Wait();
  // Wall time of the thread's work, the library load included (0 before it ends).
  double work_ms();

 private:
  void Run();
  void Stop();

  std::mutex mutex_;
  std::condition_variable changed_;
  bool begun_ = false;      // Guarded by mutex_.
  bool cancelled_ = false;  // Guarded by mutex_.
  bool done_ = false;       // Guarded by mutex_.
  bool blas_made_ = false;  // Guarded by mutex_: blas_ is set (or making it failed).
  std::shared_ptr<DeviceAllocator> allocator_;  // Set under mutex_ by Begin.
  CUstream stream_ = nullptr;                   // Set under mutex_ by Begin.
  std::unique_ptr<BlasLt> blas_;                // Guarded by mutex_.
  std::optional<ReluProbeReadings> relu_;       // Guarded by mutex_.
  double work_ms_ = 0;                          // Guarded by mutex_.
  std::thread thread_;
};

}  // namespace ember::cuda
