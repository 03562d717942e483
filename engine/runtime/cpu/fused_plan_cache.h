// FusedPlanCache: compiled FusedPlans (fused_plan.h) kept across launches, one CPU backend's.
//
// A plan depends on the trace and the launch's shapes and dtypes only, so the steady state of a
// repeated program (every segment a plan-store hit) compiles nothing: before this cache,
// PlanFused and CompileBlock ran on every launch and cost as much as running a small trace
// (docs/BENCHMARKS.md, issue 18). A launch with a trace serial (engine/trace/trace_serial.h,
// what every TraceOptimization gives) is looked up by it: a serial names one trace content, so
// only the shapes and dtypes are compared. A launch without one is looked up by the trace's
// address and the trace itself is compared on a hit (an optimization freed and another
// allocated at the same address must not be served its plan).
//
// Take hands a plan out for one launch, Give puts it back: a plan is bound to one launch's
// memory while it runs, so two launches of the same plan at once each get their own.
//
// Threading: thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "engine/runtime/cpu/fused_plan.h"
#include "engine/runtime/fused_launch.h"

namespace ember::cpu {

class FusedPlanCache {
 public:
  // Plans kept in all; past this the cache starts over (a program with this many distinct
  // (trace, shapes) pairs is not in a steady state that the cache could serve).
  static constexpr size_t kMaxPlans = 1024;
  // Shape variants kept per trace (a dynamic sequence length would otherwise grow one list).
  static constexpr size_t kMaxPerTrace = 16;

  // A plan compiled for launch's trace and shapes: a kept one, or PlanFused's (which throws
  // ember::Error for a launch it cannot run; nothing is kept then).
  // REQUIRES: launch.trace is not null.
  std::unique_ptr<FusedPlan> Take(const FusedLaunch& launch);
  // Keeps `plan`, which Take returned for `launch`, for the next launches like it. Drops the
  // plan's handles first, so that the cache never holds a tensor's memory alive.
  void Give(const FusedLaunch& launch, std::unique_ptr<FusedPlan> plan);

  uint64_t hits() const;
  uint64_t misses() const;
  size_t size() const;

 private:
  // The serial, or (serial 0) the trace's address.
  struct Key {
    uint64_t serial = 0;
    const FuseTrace* trace = nullptr;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<uint64_t>()(k.serial ^ reinterpret_cast<uintptr_t>(k.trace));
    }
  };
  static Key KeyOf(const FusedLaunch& launch) {
    return launch.trace_serial != 0 ? Key{launch.trace_serial, nullptr} : Key{0, launch.trace};
  }
  struct Entry {
    FuseTrace trace;               // compared only for launches without a serial
    std::vector<TensorIr> inputs;  // shape and dtype of each input (ids unused)
    std::vector<TensorIr> outputs;
    std::vector<Shape> block_shapes;
    std::vector<Shape> view_shapes;
    std::unique_ptr<FusedPlan> plan;  // null while a launch holds it
  };
  static bool Matches(const Entry& entry, const FusedLaunch& launch);

  mutable std::mutex mu_;
  std::unordered_map<Key, std::vector<Entry>, KeyHash> entries_;
  size_t size_ = 0;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
};

}  // namespace ember::cpu
