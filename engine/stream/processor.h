// Processor: decides, for one stream, what to execute and when (burn's Processor).
//
// ExecutionMode::Lazy runs once per newly queued op and may leave ops queued;
// ExecutionMode::Sync runs at a drain and must consume the whole queue.
//
// This is the foundation's processor: it has no Policy, Explorer or plan store yet (the fusion
// core replaces its body), so every op runs unfused, in queue order. Lazy mode keeps ops queued
// until a drain, or until kMaxPendingOps are waiting, so that a program that never syncs still
// runs in bounded memory.
#pragma once

#include <cstddef>

#include "engine/runtime/backend.h"
#include "engine/stream/execution_mode.h"
#include "engine/stream/operation_queue.h"

namespace ember {

class Processor {
 public:
  static constexpr size_t kMaxPendingOps = 1024;

  void Process(OperationQueue& queue, Backend& backend, HandleContainer& handles,
               ExecutionMode mode);
};

}  // namespace ember
