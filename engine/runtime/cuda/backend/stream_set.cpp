#include "engine/runtime/cuda/backend/stream_set.h"

namespace ember::cuda {

CudaStream& StreamSet::Get(uint64_t id) {
  auto it = by_id_.find(id);
  if (it != by_id_.end()) return *it->second;
  CudaStream* stream = nullptr;
  if (!idle_.empty()) {
    stream = idle_.back();
    idle_.pop_back();
  } else {
    all_.push_back(std::make_unique<CudaStream>(device_));
    stream = all_.back().get();
  }
  by_id_.emplace(id, stream);
  return *stream;
}

void StreamSet::Release(uint64_t id) {
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return;
  idle_.push_back(it->second);
  by_id_.erase(it);
}

void StreamSet::SynchronizeAll() const {
  for (const auto& stream : all_) stream->Synchronize();
}

}  // namespace ember::cuda
