// GraphTape: what a launch window's CUDA graph is made of, as data (Note [Launch windows] in
// engine/runtime/cuda/backend/launch_graphs.h). A window is a run of generated-kernel launches
// on one stream between two points where that stream gets other work or the host waits; its
// tape is each launch's kernel (the KernelBinaryKey hash of the kernel it runs: the same in every
// process that compiles the same source for the same device and toolkit) and geometry (grid,
// threads, dynamic shared memory, argument words). The argument *values* are not part of the
// tape: every replay sets each node to exactly the arguments the eager launch would have used.
//
// A tape is also a recipe's body in the plan database (GraphRecipe, graph_recipe_store.h),
// written by EncodeTape and read by DecodeTape, which refuses anything that is not a tape this
// build wrote; a recipe can only say "this tape repeated before": it never supplies arguments,
// so a forged one costs at most one capture (docs/PLAN_DATABASE.md, "Graph recipes").
//
// Pure; callable from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ember {

struct TapeLaunch {
  uint64_t kernel = 0;  // KernelBinaryKey::hash of the kernel launched
  uint32_t grid = 1;    // blocks (one dimension)
  uint32_t threads = 1;
  uint32_t shared_bytes = 0;  // dynamic shared memory
  uint32_t arg_words = 0;     // 8-byte words of the argument block
  bool operator==(const TapeLaunch&) const = default;
};

struct GraphTape {
  std::vector<TapeLaunch> launches;  // in launch order
  bool operator==(const GraphTape&) const = default;
};

// The most launches one tape holds; a window that reaches it ends there (launch_graphs.h).
inline constexpr size_t kMaxTapeLaunches = 256;

// Hashes a tape launch by launch, so a window's hash is known as it grows: start from
// kTapeSeed, fold each launch with TapeStep. The hash only narrows: tapes are compared in full.
inline constexpr uint64_t kTapeSeed = 0x656d6265722d7467ULL;
uint64_t TapeStep(uint64_t hash, const TapeLaunch& launch);
uint64_t TapeHash(const GraphTape& tape);

// The recipe body of `tape`: a header line, then one line per launch
// ("<kernel as 16 hex digits> <grid> <threads> <shared bytes> <argument words>").
std::string EncodeTape(const GraphTape& tape);
// The tape `text` encodes; nullopt (with the reason in *why when given) for anything else: a
// foreign header, a malformed or out-of-range line, no launch, more than kMaxTapeLaunches.
std::optional<GraphTape> DecodeTape(std::string_view text, std::string* why = nullptr);

// The distinct kernels of `tape`, in first-launch order (a recipe's kernel list).
std::vector<uint64_t> TapeKernels(const GraphTape& tape);

}  // namespace ember
