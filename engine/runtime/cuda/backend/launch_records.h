// LaunchRecords: fused launches kept ready to replay, least recently used first out.
//
// A launch record is what TraceLauncher::Run derives for one trace and one binding of its
// tensors (codegen/launch_binding.h): the planned kernels, each with its CUfunction, its grid
// in whole waves, threads and shared memory, its argument block as KernelArguments filled it,
// and the slots a later launch patches (tensor addresses, scalar values); and the scratch
// buffers to allocate. Every other slot (strides, dims, counts, parts) is a function of the
// binding, so a launch whose trace serial and binding equal a record's replays it: build the
// binding (a few dozen integers), find it, allocate the scratch, patch, cuLaunchKernel. No
// TracePlan, no signature text, no kernel-cache lookup, no argument map.
//
// A record is keyed by the trace's serial (engine/trace/trace_serial.h) and the binding's
// words, compared in full on a hit (the hash only narrows). Records hold no tensor and no
// device memory; their CUfunctions live as long as the backend's KernelCache.
//
// Threading: one backend's, called under its lock.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

#include <ember/dtype.h>

#include "codegen/kernel_plan.h"
#include "codegen/launch_binding.h"

namespace ember::cuda {

// One slot a replay fills from the launch: a kernel tensor's address (tensors numbered as
// codegen::TraceLaunch numbers them, scratch last) or a scalar's value.
struct RecordedPatch {
  enum class Kind : uint8_t { kAddress, kScalar, kFill };
  Kind kind = Kind::kAddress;
  DType dtype = DType::kF32;  // kScalar, kFill
  uint32_t slot = 0;
  uint32_t index = 0;  // kernel tensor, or scalar
};

struct RecordedKernel {
  CUfunction function = nullptr;
  uint64_t kernel = 0;  // its KernelBinaryKey hash (a graph tape's name for it)
  int64_t grid = 1;
  int threads = 256;
  int shared_bytes = 0;
  std::vector<uint64_t> args;  // the argument block, patched slots left as they were
  std::vector<RecordedPatch> patches;
};

struct LaunchRecord {
  std::vector<RecordedKernel> kernels;  // in launch order
  std::vector<codegen::ScratchSpec> scratch;
  int first_scratch_tensor = 0;
};

class LaunchRecords {
 public:
  struct Counters {
    uint64_t hits = 0;
    uint64_t misses = 0;
    uint64_t evictions = 0;
  };

  // `capacity` 0: nothing is kept (enabled() is false).
  explicit LaunchRecords(size_t capacity) : capacity_(capacity) {}

  bool enabled() const { return capacity_ > 0; }
  // The record of (serial, binding), now the most recently used; null (a miss) when none.
  const LaunchRecord* Find(uint64_t serial, const codegen::LaunchBinding& binding);
  // Keeps `record` for (serial, binding), evicting the least recently used past the capacity.
  // REQUIRES: enabled(), and Find(serial, binding) just missed.
  const LaunchRecord& Add(uint64_t serial, const codegen::LaunchBinding& binding,
                          LaunchRecord record);

  Counters counters() const { return counters_; }
  size_t size() const { return lru_.size(); }

 private:
  struct Entry {
    uint64_t serial = 0;
    uint64_t hash = 0;
    codegen::LaunchBinding binding;
    LaunchRecord record;
  };
  static uint64_t HashOf(uint64_t serial, const codegen::LaunchBinding& binding);

  const size_t capacity_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_multimap<uint64_t, std::list<Entry>::iterator> index_;
  Counters counters_;
};

}  // namespace ember::cuda
