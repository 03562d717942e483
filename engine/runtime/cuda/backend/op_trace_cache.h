// OpTraceCache: the one-op traces an unfused op runs through (op_traces.h), built once per
// structure and named by a trace serial (engine/trace/trace_serial.h).
//
// Why: an unfused op used to build its trace on every call, with the op's own tensor ids in
// it. The launcher's compiled-kernel lookup then compared a trace it had never seen, generated
// the kernel's source again to find the compiled module by its text, and kept one more entry
// per call (docs/BENCHMARKS.md, issue 41: ≈75 µs of host time per unfused op on an H100). With
// the trace built from the op's structure only (kind, dtypes, ranks, scalar count) and kept
// here, an unfused op's launch is a launch-record hit like a fused one.
//
// Bounded: past kMaxTraces structures the cache starts over (a process that runs that many
// distinct op structures unfused has no steady state to serve). A reference returned stays
// valid until the next call.
//
// Threading: one backend's, called under its lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>

#include <boost/container/small_vector.hpp>

#include "engine/ir/operation_ir.h"
#include "engine/trace/fuse_trace.h"

namespace ember::cuda {

struct KeyedTrace {
  FuseTrace trace;
  uint64_t serial = 0;
};

class OpTraceCache {
 public:
  static constexpr size_t kMaxTraces = 4096;

  // ElementwiseTrace(op), CopyTrace(dtype, rank), ReduceTrace(kind, input, output, axis, rank).
  const KeyedTrace& Elementwise(const OperationIr& op);
  const KeyedTrace& Copy(DType dtype, size_t rank);
  const KeyedTrace& Reduce(ReduceStage::Kind kind, DType input, DType output, int64_t axis,
                           size_t rank);

  size_t size() const { return traces_.size(); }

 private:
  using Key = boost::container::small_vector<int64_t, 16>;
  struct KeyHash {
    size_t operator()(const Key& key) const;
  };
  template <typename Build>
  const KeyedTrace& Get(const Key& key, Build&& build);

  std::unordered_map<Key, std::unique_ptr<KeyedTrace>, KeyHash> traces_;
};

}  // namespace ember::cuda
