// ElementWiseFuser: fuses a run of elementwise ops into one kernel (burn's ElementWiseFuser,
// burn-cubecl-fusion's optim/elemwise/fuser.rs): accepts what TraceOpFuser accepts, closes on
// the first op it cannot fuse, is ready once it holds one op, scores by Scoring. Registered
// first, so it wins ties.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/fuse/fuser.h"
#include "engine/fuse/trace_op_fuser.h"

namespace ember {

class ElementWiseFuser final : public OperationFuser {
 public:
  static constexpr std::string_view kName = "ElementWise";
  // What the environment fingerprint records for it (Note [Environment fingerprint]): raised
  // whenever what it accepts or builds changes, so that no plan found by the old rules is
  // served. 2: burn's conversion rule for Cast (CastIsFusable, trace_op_fuser.h). 3: Gather,
  // Select and Cat as indexed inputs (Note [Indexed inputs], engine/trace/fuse_trace.h).
  static constexpr uint32_t kVersion = 3;

  // `max_bindings`: buffers one kernel may take (CPU: unlimited; CUDA: 1024).
  explicit ElementWiseFuser(uint32_t max_bindings);

  void Fuse(const OperationIr& op) override { fuser_.Fuse(op); }
  std::shared_ptr<Optimization> Finish() override;
  void Reset() override { fuser_.Reset(); }
  FuserStatus status() const override { return fuser_.status(); }
  FuserProperties properties() const override { return fuser_.properties(); }
  size_t len() const override { return fuser_.len(); }
  std::unique_ptr<OperationFuser> Clone() const override;

 private:
  TraceOpFuser fuser_;
};

}  // namespace ember
