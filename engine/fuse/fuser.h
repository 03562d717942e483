// OperationFuser: a fusion strategy that sees relative ops one at a time, accepts or closes,
// and reports whether it could build an optimization now and how good it would be (burn's
// OperationFuser). One implementation per file in engine/fuse/; the search clones a fresh set
// of fusers per block and per merge attempt, and the order of the fuser list breaks score ties.
//
// Threading: a fuser belongs to one stream's search; no sharing.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/fuse/optimization.h"
#include "engine/ir/operation_ir.h"

namespace ember {

enum class FuserStatus { kClosed, kOpen };

struct FuserProperties {
  uint64_t score = 0;  // higher is better; 0 is never chosen (the ops run unfused)
  bool ready = false;  // Finish() would give an executable optimization now

  bool operator==(const FuserProperties&) const = default;
};

class OperationFuser {
 public:
  virtual ~OperationFuser() = default;

  // Registers the next relative op of the block. A fuser that cannot take `op` closes and
  // ignores it (and everything after it).
  virtual void Fuse(const OperationIr& op) = 0;
  // REQUIRES: properties().ready.
  virtual std::shared_ptr<Optimization> Finish() = 0;
  virtual void Reset() = 0;
  virtual FuserStatus status() const = 0;
  virtual FuserProperties properties() const = 0;
  // Ops fused so far.
  virtual size_t len() const = 0;
  virtual std::unique_ptr<OperationFuser> Clone() const = 0;
};

}  // namespace ember
