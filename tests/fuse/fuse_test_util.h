// Helpers for the fuser tests. Their ops are written the way the queue would hand them over:
// tensors are (relative id, relative shape ids, status), scalars are placeholders
// (tests/common/ir_builders.h).
#pragma once

#include <vector>

#include "engine/fuse/fuser.h"
#include "engine/ir/builders.h"
#include "tests/common/ir_builders.h"

namespace ember::fuse_test {

// Feeds `ops` in order; returns how many were taken before the fuser closed.
inline size_t FeedAll(OperationFuser& fuser, const std::vector<OperationIr>& ops) {
  for (const OperationIr& op : ops) fuser.Fuse(op);
  return fuser.len();
}

}  // namespace ember::fuse_test
