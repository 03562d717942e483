#include "engine/search/merging.h"

#include <utility>

namespace ember {

MergeBlocksResult MergeBlocksResult::Full(Block block) {
  MergeBlocksResult result;
  result.kind = Kind::kFull;
  result.merged.push_back(std::move(block));
  return result;
}

MergeBlocksResult MergeBlocksResult::Partial(std::vector<Block> merged, std::vector<Block> failed) {
  MergeBlocksResult result;
  result.kind = Kind::kPartial;
  result.merged = std::move(merged);
  result.failed = std::move(failed);
  return result;
}

std::optional<Block> MergeTwo(const Block& a, const Block& b, const Reachability& guard) {
  if (!guard.CanContract(a.constituents(), b.constituents())) return std::nullopt;
  // CanAppend first: it is cheaper than copying the base block with its fusers.
  if (a.CanAppend(b)) {
    Block base = a;
    if (base.Merge(b)) return base;
  }
  if (b.CanAppend(a)) {
    Block base = b;
    if (base.Merge(a)) return base;
  }
  return std::nullopt;
}

MergeBlocksResult MergeAccumulator(const Block& base, std::span<const Block> rest,
                                   const Reachability& guard) {
  Block accumulated = base;
  std::vector<Block> failed;
  bool any_merged = false;
  for (const Block& block : rest) {
    std::optional<Block> merged = MergeTwo(accumulated, block, guard);
    if (merged) {
      any_merged = true;
      accumulated = std::move(*merged);
    } else {
      failed.push_back(block);
    }
  }
  if (!any_merged) return MergeBlocksResult::Fail();
  if (failed.empty()) return MergeBlocksResult::Full(std::move(accumulated));
  std::vector<Block> merged;
  merged.push_back(std::move(accumulated));
  return MergeBlocksResult::Partial(std::move(merged), std::move(failed));
}

namespace {

struct Step1 {
  std::vector<Block> full;
  std::vector<Block> partial;
  std::vector<Block> failed;
};

void Append(std::vector<Block>& to, std::vector<Block>& from) {
  for (Block& block : from) to.push_back(std::move(block));
  from.clear();
}

Step1 MergeStep1(std::span<const Block* const> blocks, const Reachability& guard) {
  const size_t step_size = blocks.size() / 2;
  const size_t num_steps = (blocks.size() + step_size - 1) / step_size;
  Step1 step;
  for (size_t i = 0; i < num_steps; ++i) {
    const size_t start = i * step_size;
    const size_t end = std::min(start + step_size, blocks.size());
    const std::span<const Block* const> chunk = blocks.subspan(start, end - start);
    MergeBlocksResult result = MergeBlocks(chunk, /*sorted=*/false, guard);
    switch (result.kind) {
      case MergeBlocksResult::Kind::kFull:
        step.full.push_back(std::move(result.merged.front()));
        break;
      case MergeBlocksResult::Kind::kPartial:
        Append(step.partial, result.merged);
        Append(step.failed, result.failed);
        break;
      case MergeBlocksResult::Kind::kFail:
        for (const Block* block : chunk) step.failed.push_back(*block);
        break;
    }
  }
  return step;
}

// Folds `list` with the accumulator: Full → [block]; Partial → its merged blocks, the blocks it
// could not merge go to `failed`; Fail → `list` unchanged.
void Accumulate(std::vector<Block>& list, std::vector<Block>& failed, const Reachability& guard) {
  MergeBlocksResult result =
      MergeAccumulator(list.front(), std::span<const Block>(list).subspan(1), guard);
  switch (result.kind) {
    case MergeBlocksResult::Kind::kFull:
    case MergeBlocksResult::Kind::kPartial:
      list = std::move(result.merged);
      Append(failed, result.failed);
      break;
    case MergeBlocksResult::Kind::kFail: break;
  }
}

MergeBlocksResult MergeStep2(Step1 step, const Reachability& guard) {
  // 1. The partial results among themselves.
  if (step.partial.size() > 1) Accumulate(step.partial, step.failed, guard);
  // 2. The partial results with the blocks that failed.
  if (!step.failed.empty()) {
    Append(step.partial, step.failed);
    Accumulate(step.partial, step.failed, guard);
  }
  // 3. The full results among themselves.
  if (step.full.size() > 1) Accumulate(step.full, step.failed, guard);
  // 4. The full results with the blocks that failed.
  if (!step.full.empty()) {
    Append(step.full, step.failed);
    Accumulate(step.full, step.failed, guard);
  }
  // 5. The full results with the partial ones.
  if (!step.full.empty() || !step.partial.empty()) {
    Append(step.full, step.partial);
    Accumulate(step.full, step.failed, guard);
  }

  if (step.full.empty()) return MergeBlocksResult::Fail();
  if (step.failed.empty() && step.full.size() == 1) {
    return MergeBlocksResult::Full(std::move(step.full.front()));
  }
  return MergeBlocksResult::Partial(std::move(step.full), std::move(step.failed));
}

}  // namespace

MergeBlocksResult MergeBlocks(std::span<const Block* const> blocks, bool sorted,
                              const Reachability& guard) {
  if (blocks.empty()) return MergeBlocksResult::Fail();
  if (blocks.size() == 1) return MergeBlocksResult::Full(*blocks.front());
  if (blocks.size() == 2) {
    std::optional<Block> merged = MergeTwo(*blocks[0], *blocks[1], guard);
    return merged ? MergeBlocksResult::Full(std::move(*merged)) : MergeBlocksResult::Fail();
  }

  Step1 step = MergeStep1(blocks, guard);
  if (step.full.size() == 1 && step.partial.empty() && step.failed.empty()) {
    return MergeBlocksResult::Full(std::move(step.full.front()));
  }
  if (step.partial.size() == 1 && step.full.empty() && step.failed.empty()) {
    return MergeBlocksResult::Full(std::move(step.partial.front()));
  }
  MergeBlocksResult result = MergeStep2(std::move(step), guard);
  if (sorted && result.kind == MergeBlocksResult::Kind::kPartial) {
    Block::Sort(result.merged);
    Block::Sort(result.failed);
  }
  return result;
}

}  // namespace ember
