// Backend: runs ops on one device. An interface because it is a resource, with one
// implementation per device kind (engine/runtime/cpu, engine/runtime/cuda).
//
// Threading: a backend belongs to one device server and is called under its lock, one call at
// a time; implementations may use worker threads inside a call.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "engine/ir/operation_ir.h"
#include "engine/runtime/device_facts.h"
#include "engine/runtime/fused_launch.h"
#include "engine/runtime/graph_recipe_store.h"
#include "engine/runtime/handle_container.h"
#include "engine/runtime/kernel_store.h"

namespace ember {

// The input handles of an unfused op, taken from `handles` before it runs, as every backend's
// Execute does: Get removes last uses (ReadWrite), which lets kernels reuse their buffers and
// frees them when the kernel returns; a tensor read twice by one op (x * x) is removed only at
// its last occurrence. None for a Drop (it frees its input itself).
std::vector<TensorHandle> TakeInputs(const OperationIr& op, HandleContainer& handles);

// Launch windows replayed as CUDA graphs (Note [Launch windows], engine/runtime/cuda/backend/
// launch_graphs.h); the public ember::GraphStats (stats.h) says what each counts.
struct GraphCounters {
  uint64_t captures = 0;
  uint64_t capture_failures = 0;
  uint64_t replays = 0;
  uint64_t replayed_launches = 0;
  uint64_t node_updates = 0;
  uint64_t fallback_diverged = 0;
  uint64_t fallback_ended_early = 0;
  uint64_t fallback_replay_failed = 0;
  uint64_t evictions = 0;
  uint64_t recipes_loaded = 0;
  uint64_t recipes_stored = 0;
  uint64_t windows = 0;
  uint64_t ends_matmul = 0;
  uint64_t ends_other_work = 0;
  uint64_t ends_host_wait = 0;
  uint64_t ends_stream_switch = 0;
  uint64_t ends_full = 0;
  uint64_t ends_complete = 0;
};

// What a backend's kernel compiler did since it started (zeros for a backend without
// generated kernels: the CPU interprets fused traces).
struct KernelCounters {
  uint64_t compiled = 0;            // kernels compiled (NVRTC)
  double compile_ms = 0;            // wall time spent compiling them
  uint64_t loaded_from_shm = 0;     // kernels loaded from the plan database's shared tier
  uint64_t loaded_from_sqlite = 0;  // kernels loaded from the plan database
  uint64_t rebuilt = 0;             // stored kernels refused (damaged, another GPU) and compiled
  uint64_t register_capped = 0;     // row kernels used under a register cap (register_cap.h)
  // Launch records (engine/runtime/cuda/backend/launch_records.h): launches that replayed
  // one, launches that had to plan, records dropped for the capacity.
  uint64_t record_hits = 0;
  uint64_t record_misses = 0;
  uint64_t record_evictions = 0;
  // The start (ember::StartBreakdown): stored kernels looked up and loaded, the libraries
  // readied beside the start, and backend made -> the first op or trace queued.
  double kernel_load_ms = 0;
  double kernel_source_ms = 0;
  double libraries_ms = 0;
  double first_op_ms = 0;
  GraphCounters graphs;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // "cpu", "cuda".
  virtual std::string_view name() const = 0;

  // Runs one *global* op unfused (real ids, shapes, scalars and ranges): takes its inputs from
  // `handles` (Get, so last uses are removed) and registers a handle for each output. Init is
  // a no-op (the handle was registered before the op was queued); Drop frees its input.
  // REQUIRES: the op passed the API's checks (shapes, dtypes, axes are valid).
  virtual void Execute(const OperationIr& op, HandleContainer& handles) = 0;

  // Runs a fused trace (Note [Fused trace], engine/trace/fuse_trace.h) and returns one handle
  // per launch.outputs, in order. Throws ember::Error when it cannot (the default: a backend
  // without fused kernels); the caller then runs the trace's ops one by one, so a throwing
  // backend must not have changed any input.
  virtual std::vector<TensorHandle> ExecuteFused(const FusedLaunch& launch);

  // A new contiguous handle holding a copy of `bytes` (row-major, dtype's element size).
  // REQUIRES: bytes.size() == NumElements(shape) * DTypeSize(dtype).
  virtual TensorHandle FromHost(std::span<const std::byte> bytes, const Shape& shape,
                                DType dtype) = 0;

  // A buffer over `bytes` bytes at `data` that belong to someone else (ember::ImportMemory: a
  // host pointer for the CPU, a device address in this device's context for CUDA), alive
  // while `owner` is and ready for the current stream's work. ember never writes it
  // (Buffer::borrowed); the backend releases `owner` once nothing reads the memory. Throws
  // ember::Error when the backend cannot read memory in place (the default).
  // REQUIRES: data != nullptr; owner != nullptr.
  virtual std::shared_ptr<Buffer> Borrow(void* data, size_t bytes,
                                         std::shared_ptr<const void> owner);
  // The native queue the current stream's work goes to, as an integer (a CUstream for CUDA),
  // for a producer of borrowed memory to order its writes before (DLPack's stream argument);
  // 0 for a backend that runs each call to completion (the default: nothing to order).
  virtual uintptr_t NativeStream() { return 0; }

  // Copies the elements of `handle` to `out` in row-major order (handles may be strided).
  // REQUIRES: out.size() == handle.NumElements() * DTypeSize(handle.dtype).
  virtual void ToHost(const TensorHandle& handle, std::span<std::byte> out) = 0;

  // Reseeds the generator used by Random ops (deterministic sequences per seed).
  virtual void Seed(uint64_t seed) = 0;

  // The ember stream (engine/stream/stream_id.h) that the calls from now on come from, until
  // the next SetStream. A backend with one queue of work ignores it (the default); the CUDA
  // backend queues each ember stream's work on its own CUDA stream and orders what crosses
  // between them, so a caller sets the stream before every call that queues work.
  virtual void SetStream(uint64_t /*stream*/) {}
  // Ember stream `stream` is forgotten (its thread is gone and nothing of it is queued): what
  // the backend kept for it may serve another one.
  virtual void ReleaseStream(uint64_t /*stream*/) {}

  virtual KernelCounters kernel_counters() const { return {}; }
  // Whether this backend compiles kernels (then it takes a KernelStore).
  virtual bool compiles_kernels() const { return false; }
  // Keeps compiled kernels in `store` from now on (null: in memory only). The composition root
  // hands it the plan database's store before the first op. `store` must outlive the backend
  // or be replaced first.
  virtual void UseKernelStore(KernelStore* /*store*/) {}
  // Keeps what it measures about the device (DeviceFactStore) in `store` from now on (null: in
  // memory only); handed over like the kernel store, with the same lifetime rule.
  virtual void UseFactStore(DeviceFactStore* /*store*/) {}
  // Keeps the tapes of launch windows that repeated in `store` from now on, and reads the ones
  // kept there (null: in memory only); handed over like the kernel store, with the same
  // lifetime rule. A backend without graphs ignores it.
  virtual void UseRecipeStore(GraphRecipeStore* /*store*/) {}

  // Waits for all work submitted from the current stream (a no-op for synchronous backends),
  // including the work of other streams it waits for.
  virtual void Synchronize() = 0;
};

}  // namespace ember
