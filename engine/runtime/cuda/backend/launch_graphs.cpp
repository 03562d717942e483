#include "engine/runtime/cuda/backend/launch_graphs.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "engine/core/log.h"
#include "engine/runtime/cuda/driver_api.h"

namespace ember::cuda {
namespace {

// Eager windows' tapes remembered while they repeat; past this many, the count starts over (a
// program whose windows never repeat must not grow this without bound).
constexpr size_t kMostSeen = 4096;

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
    : ctx_(ctx), settings_(settings) {}

LaunchGraphs::~LaunchGraphs() {
  try {
    ScopedContext scope(*ctx_.device);
    for (Graph& g : lru_) {
      EMBER_CU_WARN(cuGraphExecDestroy, g.exec);
      EMBER_CU_WARN(cuGraphDestroy, g.graph);
    }
  } catch (const std::exception&) {
    // The driver is gone with the process; so are the graphs.
  }
}

void LaunchGraphs::UseStore(GraphRecipeStore* store) {
  store_ = store;
  if (store == nullptr) return;
  for (const GraphRecipe& recipe : store->LoadAll()) {
    std::optional<GraphTape> tape = DecodeTape(recipe.body);
    // A recipe is only a hint, and only one that is what it says it is counts.
    if (!tape || TapeHash(*tape) != recipe.key || TapeKernels(*tape) != recipe.kernels) continue;
    stored_.insert_or_assign(recipe.key, std::move(*tape));
    ++counters_.recipes_loaded;
  }
}

void LaunchGraphs::Direct(const KernelLaunch& l, CUstream stream) {
  void* params[] = {const_cast<uint64_t*>(l.args.data())};
  EMBER_CU(cuLaunchKernel, l.function, Blocks(l.grid), 1, 1, static_cast<unsigned>(l.threads), 1, 1,
           static_cast<unsigned>(l.shared_bytes), stream, params, nullptr);
}

std::vector<LaunchGraphs::Graph*> LaunchGraphs::GraphsStartingWith(const TapeLaunch& first) {
  std::vector<Graph*> found;
  auto [begin, end] = by_first_.equal_range(TapeStep(kTapeSeed, first));
  for (auto it = begin; it != end; ++it) {
    if (it->second->tape.launches.front() == first) found.push_back(&*it->second);
  }
  return found;
}

void LaunchGraphs::Launch(const KernelLaunch& l) {
  if (!settings_.enabled) return Direct(l, ctx_.stream->raw());
  if (!tape_.launches.empty() && (ctx_.stream != stream_ || args_.size() > (1u << 20) ||
                                  tape_.launches.size() == kWindowLaunches)) {
    EndWindow();
  }
  const TapeLaunch t = TapeOf(l);
  const size_t at = tape_.launches.size();
  if (at == 0) {
    stream_ = ctx_.stream;
    if (!lru_.empty()) candidates_ = GraphsStartingWith(t);
    holding_ = !candidates_.empty();
    if (holding_) stream_->set_pending(this);
  } else if (holding_) {
    std::erase_if(candidates_, [&](const Graph* g) {
      return g->tape.launches.size() <= at || !(g->tape.launches[at] == t);
    });
    if (candidates_.empty()) {
      // Not any graph's window after all: what was held runs now, as it would have.
      ++counters_.fallback_diverged;
      LogFusion(LogLevel::kMedium, [&] {
        return fmt::format(
            "[cuda] graph: a held window differs from every graph at launch {}; "
            "it runs eagerly",
            at);
      });
      stream_->set_pending(nullptr);
      holding_ = false;
      SubmitEagerly();
      kept_.clear();
    }
  }
  tape_.launches.push_back(t);
  hash_ = TapeStep(hash_, t);
  functions_.push_back(l.function);
  args_.insert(args_.end(), l.args.begin(), l.args.end());
  offsets_.push_back(args_.size());
  if (!holding_) return Direct(l, stream_->raw());
  // Complete: no graph it still matches is longer, so nothing later can make it another
  // window's beginning. It replays now instead of waiting for the stream's next other work,
  // so the device starts as early as the last launch allows.
  const size_t n = tape_.launches.size();
  if (std::all_of(candidates_.begin(), candidates_.end(),
                  [&](const Graph* g) { return g->tape.launches.size() == n; })) {
    EndWindow();
  }
}

void LaunchGraphs::SubmitEagerly() {
  for (size_t i = 0; i < functions_.size(); ++i) {
    Direct({.function = functions_[i],
            .grid = tape_.launches[i].grid,
            .threads = static_cast<int>(tape_.launches[i].threads),
            .shared_bytes = static_cast<int>(tape_.launches[i].shared_bytes),
            .args = std::span(args_).subspan(offsets_[i], offsets_[i + 1] - offsets_[i])},
           stream_->raw());
  }
}

void LaunchGraphs::ResetWindow() {
  if (stream_ != nullptr && holding_) stream_->set_pending(nullptr);
  holding_ = false;
  candidates_.clear();
  kept_.clear();
  tape_.launches.clear();
  hash_ = kTapeSeed;
  functions_.clear();
  offsets_.assign(1, 0);
  args_.clear();
}

void LaunchGraphs::EndWindow() {
  if (tape_.launches.empty()) return;
  struct Reset {
    LaunchGraphs* self;
    ~Reset() { self->ResetWindow(); }
  } reset{this};
  if (!holding_) return Observe();
  stream_->set_pending(nullptr);  // what follows queues on the stream itself
  const size_t n = tape_.launches.size();
  auto whole = std::find_if(candidates_.begin(), candidates_.end(),
                            [&](const Graph* g) { return g->tape.launches.size() == n; });
  if (whole == candidates_.end()) {
    ++counters_.fallback_ended_early;
    LogFusion(LogLevel::kMedium, [&] {
      return fmt::format(
          "[cuda] graph: a held window ended after {} launches, before its graph; "
          "it runs eagerly",
          n);
    });
    SubmitEagerly();
    return Observe();
  }
  if (!Replay(**whole)) SubmitEagerly();
}

bool LaunchGraphs::Replay(Graph& g) {
  try {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const size_t from = offsets_[i], words = offsets_[i + 1] - from;
      uint64_t* last = g.args.data() + g.offsets[i];
      if (std::memcmp(last, args_.data() + from, words * sizeof(uint64_t)) == 0) continue;
      void* params[] = {args_.data() + from};
      const CUDA_KERNEL_NODE_PARAMS p = NodeParams(g.functions[i], g.tape.launches[i], params);
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
  // The most recently used first.
  for (auto it = lru_.begin(); it != lru_.end(); ++it) {
    if (&*it == &g) {
      lru_.splice(lru_.begin(), lru_, it);
      break;
    }
  }
  return true;
}

void LaunchGraphs::Observe() {
  if (tape_.launches.size() < 2) return;  // one launch gains nothing from a graph
  auto it = seen_.find(hash_);
  if (it != seen_.end() && !(it->second.tape == tape_)) return;  // a collision: never captured
  if (it == seen_.end()) {
    if (seen_.size() >= kMostSeen) seen_.clear();
    it = seen_.emplace(hash_, Seen{.tape = tape_}).first;
  }
  Seen& seen = it->second;
  if (seen.refused || seen.runs == UINT32_MAX) return;
  ++seen.runs;
  auto stored = stored_.find(hash_);
  const bool recipe = stored != stored_.end() && stored->second == tape_;
  if (seen.runs < (recipe ? 1u : settings_.after)) return;
  // Captured at most once while it is kept: a graph for it exists unless it was evicted.
  for (const Graph* g : GraphsStartingWith(tape_.launches.front())) {
    if (g->tape == tape_) return;
  }
  Capture(seen);
}

void LaunchGraphs::Capture(Seen& seen) {
  Graph g{
      .tape = tape_, .hash = hash_, .functions = functions_, .offsets = offsets_, .args = args_};
  try {
    EMBER_CU(cuGraphCreate, &g.graph, 0);
    for (size_t i = 0; i < g.functions.size(); ++i) {
      void* params[] = {g.args.data() + g.offsets[i]};
      const CUDA_KERNEL_NODE_PARAMS p = NodeParams(g.functions[i], g.tape.launches[i], params);
      CUgraphNode node = nullptr;
      const CUgraphNode* after = g.nodes.empty() ? nullptr : &g.nodes.back();
      EMBER_CU(cuGraphAddKernelNode, &node, g.graph, after, after == nullptr ? 0 : 1, &p);
      g.nodes.push_back(node);
    }
    EMBER_CU(cuGraphInstantiate, &g.exec, g.graph, 0);
  } catch (const CudaError& e) {
    if (g.graph != nullptr) EMBER_CU_WARN(cuGraphDestroy, g.graph);
    if (LosesContext(e.result())) throw;
    seen.refused = true;
    ++counters_.capture_failures;
    LogFusion(LogLevel::kMedium, [&] {
      return fmt::format(
          "[cuda] graph: capturing a window of {} launches failed ({}); it stays "
          "eager",
          tape_.launches.size(), e.what());
    });
    return;
  }
  ++counters_.captures;
  const bool recipe = stored_.contains(hash_);
  LogFusion(LogLevel::kMedium, [&] {
    return fmt::format(
        "[cuda] graph: captured a window of {} launches (tape {:016x}) after {}",
        tape_.launches.size(), hash_,
        recipe ? "its first run, from a stored recipe" : fmt::format("{} eager runs", seen.runs));
  });
  if (store_ != nullptr && !recipe) {
    store_->Remember({.key = hash_, .body = EncodeTape(tape_), .kernels = TapeKernels(tape_)});
    stored_.emplace(hash_, tape_);
    ++counters_.recipes_stored;
  }
  lru_.push_front(std::move(g));
  by_first_.emplace(TapeStep(kTapeSeed, lru_.front().tape.launches.front()), lru_.begin());
  while (lru_.size() > settings_.capacity) Evict();
}

void LaunchGraphs::Evict() {
  auto last = std::prev(lru_.end());
  auto [begin, end] = by_first_.equal_range(TapeStep(kTapeSeed, last->tape.launches.front()));
  for (auto it = begin; it != end; ++it) {
    if (it->second == last) {
      by_first_.erase(it);
      break;
    }
  }
  // An evicted tape may be captured again: it has to repeat again first.
  seen_.erase(last->hash);
  EMBER_CU_WARN(cuGraphExecDestroy, last->exec);
  EMBER_CU_WARN(cuGraphDestroy, last->graph);
  lru_.erase(last);
  ++counters_.evictions;
}

}  // namespace ember::cuda
