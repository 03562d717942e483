#include "engine/runtime/cuda/backend/launch_graphs.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "engine/core/log.h"
#include "engine/runtime/cuda/driver_api.h"

namespace ember::cuda {
namespace {

unsigned Blocks(int64_t grid) {
  return static_cast<unsigned>(std::clamp<int64_t>(grid, 1, 0x7fffffff));
}

TapeLaunch TapeOf(const KernelLaunch& l) {
  return {.kernel = l.kernel,
          .grid = Blocks(l.grid),
          .threads = static_cast<uint32_t>(l.threads),
          .shared_bytes = static_cast<uint32_t>(l.shared_bytes),
          .arg_words = static_cast<uint32_t>(l.args.size())};
}

CUDA_KERNEL_NODE_PARAMS NodeParams(CUfunction function, const TapeLaunch& t, void** params) {
  CUDA_KERNEL_NODE_PARAMS p{};
  p.func = function;
  p.gridDimX = t.grid;
  p.gridDimY = p.gridDimZ = 1;
  p.blockDimX = t.threads;
  p.blockDimY = p.blockDimZ = 1;
  p.sharedMemBytes = t.shared_bytes;
  p.kernelParams = params;
  return p;
}

}  // namespace

LaunchGraphs::LaunchGraphs(DeviceContext& ctx, Settings settings)
    : ctx_(ctx),
      enabled_(settings.enabled),
      tracker_({.after = settings.after,
                .capacity = settings.capacity,
                .most_launches = kWindowLaunches}) {}

LaunchGraphs::~LaunchGraphs() {
  // The streams outlive this (the backend's context owns them): none may call back into it.
  if (stream_ != nullptr) stream_->set_pending(nullptr);
  ReleaseFrees();
  try {
    ScopedContext scope(*ctx_.device);
    for (auto& [id, g] : graphs_) Destroy(g);
  } catch (const std::exception&) {
    // The driver is gone with the process; so are the graphs.
  }
}

void LaunchGraphs::Destroy(Graph& g) {
  if (g.exec != nullptr) EMBER_CU_WARN(cuGraphExecDestroy, g.exec);
  if (g.graph != nullptr) EMBER_CU_WARN(cuGraphDestroy, g.graph);
  g.exec = nullptr;
  g.graph = nullptr;
}

void LaunchGraphs::UseStore(GraphRecipeStore* store) {
  store_ = store;
  if (store == nullptr) return;
  for (const GraphRecipe& recipe : store->LoadAll()) {
    std::optional<GraphTape> tape = DecodeTape(recipe.body);
    // A recipe is only a hint, and only one that is what it says it is counts.
    if (!tape || TapeHash(*tape) != recipe.key || TapeKernels(*tape) != recipe.kernels) continue;
    tracker_.AddRecipe(recipe.key, std::move(*tape));
    ++counters_.recipes_loaded;
  }
}

void LaunchGraphs::Direct(const KernelLaunch& l, CUstream stream) {
  void* params[] = {const_cast<uint64_t*>(l.args.data())};
  EMBER_CU(cuLaunchKernel, l.function, Blocks(l.grid), 1, 1, static_cast<unsigned>(l.threads), 1, 1,
           static_cast<unsigned>(l.shared_bytes), stream, params, nullptr);
}

void LaunchGraphs::Launch(const KernelLaunch& l) {
  if (!enabled_) return Direct(l, ctx_.stream->raw());
  if (tracker_.full()) EndWindow(WindowEnd::kFull);
  if (tracker_.in_window() && ctx_.stream != stream_) EndWindow(WindowEnd::kStreamSwitch);
  if (!tracker_.in_window()) {
    ForgetLaunches();
    stream_ = ctx_.stream;
    // Every window, eager or held, ends where the stream next gets other work or the host
    // waits for it (CudaStream::get): an eager window's tape is then one repeated piece of a
    // step, not a run of launches across matmuls, copies and syncs.
    stream_->set_pending(this);
  }
  const WindowTracker::LaunchAction action = tracker_.OnLaunch(TapeOf(l));
  if (action == WindowTracker::LaunchAction::kDiverged) {
    // Not any graph's window after all: what was held runs now, as it would have.
    ++counters_.fallback_diverged;
    LogFusion(LogLevel::kMedium, [&] {
      return fmt::format(
          "[cuda] graph: a held window differs from every graph at launch {}; "
          "it runs eagerly",
          functions_.size());
    });
    SubmitEagerly();
    ReleaseFrees();
  }
  functions_.push_back(l.function);
  args_.insert(args_.end(), l.args.begin(), l.args.end());
  offsets_.push_back(args_.size());
  if (action != WindowTracker::LaunchAction::kHold) return Direct(l, stream_->raw());
  if (!holding_frees_) {
    ctx_.allocator->HoldFrees(stream_->raw());
    holding_frees_ = true;
  }
  // Complete: no graph it still matches is longer, so nothing later can make it another
  // window's beginning. It replays now instead of waiting for the stream's next other work,
  // so the device starts as early as the last launch allows.
  if (tracker_.complete()) EndWindow(WindowEnd::kComplete);
}

void LaunchGraphs::SubmitEagerly() {
  const std::vector<TapeLaunch>& launches = tracker_.tape().launches;
  for (size_t i = 0; i < functions_.size(); ++i) {
    Direct({.function = functions_[i],
            .grid = launches[i].grid,
            .threads = static_cast<int>(launches[i].threads),
            .shared_bytes = static_cast<int>(launches[i].shared_bytes),
            .args = std::span(args_).subspan(offsets_[i], offsets_[i + 1] - offsets_[i])},
           stream_->raw());
  }
}

void LaunchGraphs::ForgetLaunches() {
  functions_.clear();
  offsets_.assign(1, 0);
  args_.clear();
}

void LaunchGraphs::ReleaseFrees() {
  if (!holding_frees_) return;
  holding_frees_ = false;
  ctx_.allocator->ReleaseFrees(stream_->raw());
}

void LaunchGraphs::Submit(StreamWork why) {
  switch (why) {
    case StreamWork::kMatmul: return EndWindow(WindowEnd::kMatmul);
    case StreamWork::kWait: return EndWindow(WindowEnd::kHostWait);
    case StreamWork::kOther: return EndWindow(WindowEnd::kOtherWork);
  }
}

void LaunchGraphs::EndWindow(WindowEnd why) {
  if (!tracker_.in_window()) return;
  ++counters_.windows;
  switch (why) {
    case WindowEnd::kMatmul: ++counters_.ends_matmul; break;
    case WindowEnd::kOtherWork: ++counters_.ends_other_work; break;
    case WindowEnd::kHostWait: ++counters_.ends_host_wait; break;
    case WindowEnd::kStreamSwitch: ++counters_.ends_stream_switch; break;
    case WindowEnd::kFull: ++counters_.ends_full; break;
    case WindowEnd::kComplete: ++counters_.ends_complete; break;
  }
  if (stream_ != nullptr) stream_->set_pending(nullptr);  // what follows queues itself
  const WindowTracker::EndAction action = tracker_.End();
  // Held frees go back to the cache once what was held is on the stream, also when that throws.
  struct Release {
    LaunchGraphs* self;
    ~Release() { self->ReleaseFrees(); }
  } release{this};
  switch (action.kind) {
    case WindowTracker::EndAction::Kind::kNothing: break;
    case WindowTracker::EndAction::Kind::kReplay: {
      if (!Replay(graphs_.at(action.graph))) SubmitEagerly();
      break;
    }
    case WindowTracker::EndAction::Kind::kEndedEarly:
      ++counters_.fallback_ended_early;
      LogFusion(LogLevel::kMedium, [&] {
        return fmt::format(
            "[cuda] graph: a held window ended after {} launches, before its "
            "graph; it runs eagerly",
            functions_.size());
      });
      SubmitEagerly();
      break;
  }
  if (action.capture) Capture(action);
}

bool LaunchGraphs::Replay(Graph& g) {
  try {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const size_t from = offsets_[i], words = offsets_[i + 1] - from;
      uint64_t* last = g.args.data() + g.offsets[i];
      if (std::memcmp(last, args_.data() + from, words * sizeof(uint64_t)) == 0) continue;
      void* params[] = {args_.data() + from};
      const CUDA_KERNEL_NODE_PARAMS p = NodeParams(g.functions[i], g.launches[i], params);
      EMBER_CU(cuGraphExecKernelNodeSetParams, g.exec, g.nodes[i], &p);
      std::memcpy(last, args_.data() + from, words * sizeof(uint64_t));
      ++counters_.node_updates;
    }
    EMBER_CU(cuGraphLaunch, g.exec, stream_->raw());
  } catch (const CudaError& e) {
    if (LosesContext(e.result())) throw;
    // The exec may now hold some of the new arguments: forget what it was last given, so that
    // the next replay sets every node again.
    std::fill(g.args.begin(), g.args.end(), ~uint64_t{0});
    ++counters_.fallback_replay_failed;
    LogFusion(LogLevel::kMedium, [&] {
      return fmt::format("[cuda] graph: replay failed ({}); the window runs eagerly", e.what());
    });
    return false;
  }
  ++counters_.replays;
  counters_.replayed_launches += g.nodes.size();
  return true;
}

void LaunchGraphs::Capture(const WindowTracker::EndAction& action) {
  const GraphTape& tape = tracker_.tape();
  Graph g{.functions = functions_, .launches = tape.launches, .offsets = offsets_, .args = args_};
  try {
    EMBER_CU(cuGraphCreate, &g.graph, 0);
    for (size_t i = 0; i < g.functions.size(); ++i) {
      void* params[] = {g.args.data() + g.offsets[i]};
      const CUDA_KERNEL_NODE_PARAMS p = NodeParams(g.functions[i], g.launches[i], params);
      CUgraphNode node = nullptr;
      const CUgraphNode* after = g.nodes.empty() ? nullptr : &g.nodes.back();
      EMBER_CU(cuGraphAddKernelNode, &node, g.graph, after, after == nullptr ? 0 : 1, &p);
      g.nodes.push_back(node);
    }
    EMBER_CU(cuGraphInstantiate, &g.exec, g.graph, 0);
  } catch (const CudaError& e) {
    Destroy(g);
    if (LosesContext(e.result())) throw;
    tracker_.Refused();
    ++counters_.capture_failures;
    LogFusion(LogLevel::kMedium, [&] {
      return fmt::format(
          "[cuda] graph: capturing a window of {} launches failed ({}); it stays "
          "eager",
          g.launches.size(), e.what());
    });
    return;
  }
  ++counters_.captures;
  const uint64_t hash = tracker_.hash();
  LogFusion(LogLevel::kMedium, [&] {
    return fmt::format("[cuda] graph: captured a window of {} launches (tape {:016x}) after {}",
                       g.launches.size(), hash,
                       action.from_recipe ? std::string("its first run, from a stored recipe")
                                          : fmt::format("{} eager runs", action.runs));
  });
  if (store_ != nullptr && !tracker_.HasRecipe(hash)) {
    store_->Remember({.key = hash, .body = EncodeTape(tape), .kernels = TapeKernels(tape)});
    tracker_.AddRecipe(hash, tape);
    ++counters_.recipes_stored;
  }
  const WindowTracker::Kept kept = tracker_.Captured();
  graphs_.emplace(kept.id, std::move(g));
  for (WindowTracker::GraphId id : kept.evicted) {
    auto it = graphs_.find(id);
    Destroy(it->second);
    graphs_.erase(it);
    ++counters_.evictions;
  }
}

}  // namespace ember::cuda
