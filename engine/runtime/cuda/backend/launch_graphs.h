// LaunchGraphs: the CUDA backend's generated-kernel launches, replayed as CUDA graphs where a
// window of them repeats.
//
// Note [Launch windows]
// A launch costs the host 2.5-5 µs in the driver; a CUDA graph submits a chain of kernels for
// one cuGraphLaunch and about 1 µs per node. A *window* is a run of generated-kernel launches on
// one stream between two points where that stream gets other work (a copy, an upload, a
// cuBLASLt matmul, an event) or the host waits for it (a sync, a read), or the backend turns to
// another stream; it also ends after kWindowLaunches launches. In a training or inference loop
// a step is a few windows, the same ones every step. A window's *tape* (engine/runtime/
// graph_tape.h) is its launches' kernels and geometry, without their argument values.
//
//   * A window runs eagerly (each launch as it comes) until its tape has run `after` times
//     ([runtime] graph_after); then, at its end, it is captured: a graph of one kernel node per
//     launch, in a chain, instantiated once.
//   * A window whose first launch is the first launch of a captured graph is *held*: its
//     launches are not given to the driver but kept, with their arguments, while they match
//     the graph launch for launch. At the window's end, if it matched the whole graph, each
//     node whose arguments differ from its last replay is updated (cuGraphExecKernelNodeSet-
//     Params) and the graph is launched once. The end is the window's end as above, or sooner:
//     the launch that completes a graph ends the window there when no longer graph still
//     matches (the device then starts as soon as the eager path's last launch would have been
//     queued, not when the host next queues other work). If it diverged, or ended early, what
//     was held is launched eagerly, in order, and the fallback is counted by cause.
//   * Whatever would queue other work on the stream first submits what is held (CudaStream::
//     get, cuda_stream.h), so the stream's order is the eager order. While launches are held,
//     the allocator keeps the blocks freed on the stream aside (DeviceAllocator::HoldFrees), so
//     no block a held launch uses is handed to another stream or returned to the driver before
//     the launch is on the stream; a block reused on the same stream is safe in stream order,
//     as it is eagerly. The buffers are not kept alive: their use counts, which decide in-place
//     outputs, stay those of a run without graphs, and so do the kernels chosen.
//
// So a replay runs exactly the kernels, in exactly the order, with exactly the arguments that
// the launches would have been given one by one: every launch reads and writes only the buffers
// allocated for its own tensors, and results are bit-identical with graphs off. What changes is
// when the launches reach the device (a held window waits for its end: the host is the
// bottleneck in the small programs graphs serve), and which blocks the caching allocator hands
// out while frees are held, so addresses differ from a run with graphs off; a drifted address
// is a node update (the allocator hands out the lowest free block, so a repeated step settles
// on the same ones; docs/BENCHMARKS.md, issue 44).
//
// Only generated kernels are held: cuBLASLt and copies end a window (they are the other work
// above), so a matmul through cuBLASLt splits a step into the windows on either side of it.
// What ended each window is counted by cause (a matmul, other work, a host wait, a stream
// switch, the most launches, a completed graph: GraphStats, engine/api/include/ember/stats.h),
// since it bounds how many launches a graph can stand for. Eager windows end at the same points
// as held ones: the stream calls back (PendingWork::Submit) whenever a window is open.
//
// The decisions (what repeated, what a window still matches, when it is complete, what the
// capacity evicts) are WindowTracker's (engine/runtime/window_tracker.h), tested without a GPU;
// this class carries them out with the driver.
//
// Recipes (engine/runtime/graph_recipe_store.h): a captured tape is remembered in the plan
// database, and a process that loads it captures that tape after its first eager run.
//
// Threading: one backend's, under its lock.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/runtime/backend.h"
#include "engine/runtime/buffer.h"
#include "engine/runtime/cuda/backend/device_context.h"
#include "engine/runtime/graph_recipe_store.h"
#include "engine/runtime/graph_tape.h"
#include "engine/runtime/handle.h"
#include "engine/runtime/window_tracker.h"

namespace ember::cuda {

// One launch as TraceLauncher makes it: a single argument block of `args` words.
struct KernelLaunch {
  CUfunction function = nullptr;
  uint64_t kernel = 0;  // the kernel's KernelBinaryKey hash (the tape's identity of it)
  int64_t grid = 1;
  int threads = 256;
  int shared_bytes = 0;
  std::span<const uint64_t> args;
};

class LaunchGraphs final : public PendingWork {
 public:
  // The most launches of one window (graph_tape.h allows recipes up to kMaxTapeLaunches).
  static constexpr size_t kWindowLaunches = 64;

  struct Settings {
    bool enabled = true;   // [runtime] graphs
    uint32_t after = 2;    // [runtime] graph_after
    size_t capacity = 64;  // [runtime] graph_cache
  };
  // What each counts: ember::GraphStats (engine/api/include/ember/stats.h).
  using Counters = GraphCounters;

  LaunchGraphs(DeviceContext& ctx, Settings settings);
  // Destroys the graphs (with the device's context current). REQUIRES: nothing is held (the
  // backend synchronizes its streams first).
  ~LaunchGraphs() override;
  LaunchGraphs(const LaunchGraphs&) = delete;
  LaunchGraphs& operator=(const LaunchGraphs&) = delete;

  // Launches `launch` on the current stream, now or as part of a held window. Throws CudaError
  // when the driver refuses a launch made now.
  void Launch(const KernelLaunch& launch);
  // Whether the window's launches are being held.
  bool holding() const { return tracker_.holding(); }
  // What ended a window (GraphStats' window_ends_*).
  enum class WindowEnd : uint8_t {
    kMatmul,
    kOtherWork,
    kHostWait,
    kStreamSwitch,
    kFull,
    kComplete
  };
  // Ends the current window (what is held is submitted). Throws CudaError when a launch fails.
  void EndWindow(WindowEnd why);
  void Submit(StreamWork why) override;

  // Reads the recipes kept in `store` and keeps new ones there from now on (null: memory only).
  void UseStore(GraphRecipeStore* store);

  const Counters& counters() const { return counters_; }
  size_t graphs() const { return graphs_.size(); }

 private:
  struct Graph {
    CUgraph graph = nullptr;
    CUgraphExec exec = nullptr;
    std::vector<CUgraphNode> nodes;
    std::vector<CUfunction> functions;
    std::vector<TapeLaunch> launches;
    std::vector<size_t> offsets;  // of each node's arguments in `args` (and one past the last)
    std::vector<uint64_t> args;   // what each node was last launched with
  };

  void Direct(const KernelLaunch& launch, CUstream stream);
  // Launches the window's launches so far one at a time (what was held, as a fallback).
  void SubmitEagerly();
  // Launches `graph` with the held arguments; false when the driver refused (nothing launched).
  bool Replay(Graph& graph);
  // Captures the window that just ended (WindowTracker::EndAction::capture).
  void Capture(const WindowTracker::EndAction& action);
  void Destroy(Graph& graph);
  void ForgetLaunches();
  // Ends the allocator's hold on stream_'s frees (what was held is on the stream).
  void ReleaseFrees();

  DeviceContext& ctx_;
  const bool enabled_;
  WindowTracker tracker_;
  GraphRecipeStore* store_ = nullptr;

  // The window's stream and each launch's function and arguments (its tape: tracker_).
  CudaStream* stream_ = nullptr;
  std::vector<CUfunction> functions_;
  std::vector<size_t> offsets_{0};
  std::vector<uint64_t> args_;
  // The allocator holds the frees of stream_'s blocks while launches are held (HoldFrees).
  bool holding_frees_ = false;

  std::unordered_map<WindowTracker::GraphId, Graph> graphs_;
  Counters counters_;
};

}  // namespace ember::cuda
