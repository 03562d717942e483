#include "engine/search/block.h"

#include <algorithm>

#include "engine/core/check.h"
#include "engine/search/graph/lifetime.h"

namespace ember {

Block::Block(std::span<const std::unique_ptr<OperationFuser>> prototypes) {
  fusers_.reserve(prototypes.size());
  closed_after_.reserve(prototypes.size());
  for (const std::unique_ptr<OperationFuser>& prototype : prototypes) {
    fusers_.push_back(prototype->Clone());
    closed_after_.push_back(fusers_.back()->status() == FuserStatus::kClosed
                                ? std::optional<size_t>(0)
                                : std::nullopt);
  }
}

Block::Block(const Block& other)
    : closed_after_(other.closed_after_),
      operations_(other.operations_),
      ordering_(other.ordering_),
      ids_(other.ids_),
      produced_(other.produced_),
      read_(other.read_),
      freed_(other.freed_),
      constituents_(other.constituents_),
      start_pos_(other.start_pos_),
      end_pos_(other.end_pos_) {
  fusers_.reserve(other.fusers_.size());
  for (const std::unique_ptr<OperationFuser>& fuser : other.fusers_) {
    fusers_.push_back(fuser->Clone());
  }
}

Block& Block::operator=(const Block& other) {
  if (this != &other) *this = Block(other);
  return *this;
}

Block::~Block() = default;

RegistrationResult Block::Register(const OperationIr& op, size_t position, bool force) {
  if (ids_.empty() || force || ContainsTensors(op)) {
    RegisterOp(op, position);
    return RegistrationResult::kAccepted;
  }
  return RegistrationResult::kNotPartOfTheGraph;
}

void Block::RegisterOp(const OperationIr& op, size_t position) {
  operations_.push_back(op);
  ordering_.push_back(position);
  start_pos_ = std::min(start_pos_, position);
  end_pos_ = std::max(end_pos_, position + 1);

  for (size_t i = 0; i < fusers_.size(); ++i) {
    fusers_[i]->Fuse(op);
    if (!closed_after_[i] && fusers_[i]->status() == FuserStatus::kClosed) {
      closed_after_[i] = operations_.size();
    }
  }

  for (const TensorIr& tensor : op.inputs) ids_.insert(tensor.id);
  for (const TensorIr& tensor : op.outputs) ids_.insert(tensor.id);

  // An input is an external read only while no op of the block produced it; producing an id
  // later makes it internal. This does not depend on the order ops arrive in, so it holds for
  // the non-causal orders a merge can append.
  for (const TensorIr& input : op.inputs) {
    if (!produced_.contains(input.id)) read_.insert(input.id);
    if (input.status == TensorStatus::kReadWrite) freed_.insert(input.id);
  }
  for (const TensorIr& output : op.outputs) {
    produced_.insert(output.id);
    read_.erase(output.id);
  }
}

bool Block::ContainsTensors(const OperationIr& op) const {
  for (const TensorIr& tensor : op.inputs) {
    if (ids_.contains(tensor.id)) return true;
  }
  for (const TensorIr& tensor : op.outputs) {
    if (ids_.contains(tensor.id)) return true;
  }
  return false;
}

bool Block::StillOptimizing() const {
  return std::any_of(fusers_.begin(), fusers_.end(), [](const auto& fuser) {
    return fuser->status() != FuserStatus::kClosed;
  });
}

bool Block::HasReadyOptimization() const {
  return std::any_of(fusers_.begin(), fusers_.end(),
                     [](const auto& fuser) { return fuser->properties().ready; });
}

std::optional<size_t> Block::BestFuserIndex() const {
  std::optional<size_t> best;
  uint64_t best_score = 0;  // a score of 0 never wins: running unfused is as good
  for (size_t i = 0; i < fusers_.size(); ++i) {
    const FuserProperties properties = fusers_[i]->properties();
    if (properties.ready && properties.score > best_score) {
      best = i;
      best_score = properties.score;
    }
  }
  return best;
}

BlockOptimization Block::Optimize() {
  const std::optional<size_t> best = BestFuserIndex();
  if (best) {
    const uint64_t score = fusers_[*best]->properties().score;
    std::shared_ptr<Optimization> opt = fusers_[*best]->Finish();
    std::vector<size_t> ordering = ordering_;
    // The optimization's own length decides how many ops it covers (as burn's Block::optimize,
    // burn-fusion's search/block.rs): the first len() ops in registration order; the rest become
    // holes or the trailing tail.
    if (opt->len() < ordering.size()) ordering.resize(opt->len());
    return BlockOptimization{
        .strategy = ExecutionStrategy::Fused(std::move(opt), ordering, score),
        .ordering = ordering,
    };
  }
  std::vector<size_t> head(ordering_.begin(),
                           ordering_.begin() + static_cast<ptrdiff_t>(SettledHeadLength()));
  return BlockOptimization{.strategy = ExecutionStrategy::Operations(head), .ordering = head};
}

bool Block::AnyFreshFuserWouldStart(const OperationIr& op) const {
  for (const std::unique_ptr<OperationFuser>& fuser : fusers_) {
    std::unique_ptr<OperationFuser> fresh = fuser->Clone();
    fresh->Reset();
    fresh->Fuse(op);
    const FuserProperties properties = fresh->properties();
    if (fresh->status() == FuserStatus::kOpen || (properties.ready && properties.score > 0)) {
      return true;
    }
  }
  return false;
}

size_t Block::SettledHeadLength() const {
  const size_t n = operations_.size();
  EMBER_CHECK(n > 0, "settling the head of an empty block");
  // Step 1 (Note [Head settling]): up to and including the op the last fuser closed on.
  size_t head = 0;
  for (const std::optional<size_t>& closed_after : closed_after_) {
    if (!closed_after) return n;  // still Open: no boundary known, settle the whole block
    head = std::max(head, *closed_after);
  }
  // Step 2: the following ops on which no fresh fuser would start.
  while (head < n && !AnyFreshFuserWouldStart(operations_[head])) ++head;
  return std::max<size_t>(head, 1);
}

bool Block::CanAppend(const Block& other) const {
  std::vector<DataFlow> order;
  order.reserve(operations_.size() + other.operations_.size());
  for (size_t i = 0; i < operations_.size(); ++i) {
    order.push_back(ForOperation(operations_[i], ordering_[i]));
  }
  for (size_t i = 0; i < other.operations_.size(); ++i) {
    order.push_back(ForOperation(other.operations_[i], other.ordering_[i]));
  }
  return IsValidExecutionOrder(order);
}

bool Block::Merge(const Block& other) {
  // The merged block runs as one unit in registration order, so appending must not put a
  // consumer before its producer or a free before a read. Checked before anything changes.
  if (!CanAppend(other)) return false;

  const bool self_ready = HasReadyOptimization();
  const bool other_ready = other.HasReadyOptimization();
  constituents_.UnionWith(other.constituents_);
  for (size_t i = 0; i < other.operations_.size(); ++i) {
    Register(other.operations_[i], other.ordering_[i], /*force=*/true);
  }
  // A fuser that can still grow makes the merged block worth keeping.
  if (StillOptimizing()) return true;
  // Otherwise keep it only when the merge created a fusion: had either side a ready one,
  // merging would hide it behind a single choice.
  return !self_ready && !other_ready && HasReadyOptimization();
}

DataFlow Block::Flow() const {
  return MakeDataFlow(std::vector<TensorId>(produced_.begin(), produced_.end()),
                      std::vector<TensorId>(read_.begin(), read_.end()),
                      std::vector<TensorId>(freed_.begin(), freed_.end()), start_pos_);
}

bool Block::operator==(const Block& other) const {
  std::vector<size_t> a = ordering_;
  std::vector<size_t> b = other.ordering_;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

void Block::Sort(std::vector<Block>& blocks) {
  std::stable_sort(blocks.begin(), blocks.end(),
                   [](const Block& a, const Block& b) { return a.start_pos_ < b.start_pos_; });
}

namespace {

void MapStrategy(ExecutionStrategy& strategy, std::span<const size_t> mapping) {
  for (size_t& position : strategy.ordering) {
    EMBER_CHECK(position < mapping.size(), "position {} outside a {}-entry mapping", position,
                mapping.size());
    position = mapping[position];
  }
  for (ExecutionStrategy& child : strategy.children) MapStrategy(child, mapping);
}

}  // namespace

void MapOrdering(BlockOptimization& optimization, std::span<const size_t> mapping) {
  for (size_t& position : optimization.ordering) {
    EMBER_CHECK(position < mapping.size(), "position {} outside a {}-entry mapping", position,
                mapping.size());
    position = mapping[position];
  }
  MapStrategy(optimization.strategy, mapping);
}

std::vector<DataFlow> BlockFlows(std::span<const Block> blocks) {
  std::vector<DataFlow> flows;
  flows.reserve(blocks.size());
  for (const Block& block : blocks) flows.push_back(block.Flow());
  return flows;
}

std::vector<DataFlow> BlockFlows(std::span<const Block* const> blocks) {
  std::vector<DataFlow> flows;
  flows.reserve(blocks.size());
  for (const Block* block : blocks) flows.push_back(block->Flow());
  return flows;
}

}  // namespace ember
