#include "engine/stream/processor.h"

#include <numeric>
#include <vector>

namespace ember {

void Processor::Process(OperationQueue& queue, Backend& backend, HandleContainer& handles,
                        ExecutionMode mode) {
  if (queue.empty()) return;
  if (mode == ExecutionMode::kLazy && queue.size() < kMaxPendingOps) return;
  std::vector<size_t> ordering(queue.size());
  std::iota(ordering.begin(), ordering.end(), size_t{0});
  queue.ExecuteUnfused(ordering, backend, handles);
}

}  // namespace ember
