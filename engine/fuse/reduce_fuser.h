// ReduceFuser: elementwise ops on a reduce's input, the reduce (SumDim MeanDim ProdDim MaxDim
// MinDim ArgMax ArgMin), then elementwise ops on its result, as one kernel (burn's ReduceFuser,
// burn-cubecl-fusion's optim/reduce/fuser.rs): block 0 computes the reduce input (fuse-on-read), a
// ReduceStage combines it along the axis, block 1 runs on the reduced values (fuse-on-write).
//
// Rules kept from burn: the ops before the reduce must all produce exactly the reduce input's
// shape (no broadcasting in block 0), so at least one elementwise op must come first (burn's
// TODO "fuse-on-read with an identity block"); ops after it must produce exactly the reduced
// shape; every op must also be accepted by fresh fallback fusers for its side (burn builds
// fallback kernels from them; ember's fallback is the ops one by one, but their acceptance
// still decides where the fuser closes). Ready once the reduce is in; the score is the
// elementwise ops' (the reduce itself is not scored); len counts the reduce.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "engine/fuse/fuser.h"
#include "engine/fuse/trace_op_fuser.h"

namespace ember {

class ReduceFuser final : public OperationFuser {
 public:
  static constexpr std::string_view kName = "Reduce";
  // What the environment fingerprint records for it (Note [Environment fingerprint]): raised
  // whenever what it accepts or builds changes, so that no plan found by the old rules is
  // served. 2: burn's conversion rule for Cast (CastIsFusable, trace_op_fuser.h). 3: Gather,
  // Select and Cat as indexed inputs (Note [Indexed inputs], engine/trace/fuse_trace.h).
  static constexpr uint32_t kVersion = 3;

  explicit ReduceFuser(uint32_t max_bindings);

  void Fuse(const OperationIr& op) override;
  std::shared_ptr<Optimization> Finish() override;
  void Reset() override;
  FuserStatus status() const override { return fuser_.status(); }
  FuserProperties properties() const override;
  size_t len() const override { return fuser_.len() + (reduce_ ? 1 : 0); }
  std::unique_ptr<OperationFuser> Clone() const override;

  // For ReduceBroadcastedFuser: the reduce taken, if any, and the shape of the values so far.
  const std::optional<ReduceStage>& reduce() const { return reduce_; }
  const Shape& reduce_input_shape() const { return reduce_input_shape_; }
  const Shape& elementwise_shape() const { return read_fallback_.current_output_shape(); }
  bool CanFuse(const OperationIr& op) const;
  const TraceOpFuser& fuser() const { return fuser_; }

 private:
  uint32_t max_bindings_;
  TraceOpFuser fuser_;
  TraceOpFuser read_fallback_;
  TraceOpFuser write_fallback_;
  std::optional<ReduceStage> reduce_;
  Shape reduce_input_shape_;

  void OnReduce(const OperationIr& op);
  void OnElementwise(const OperationIr& op, TraceOpFuser& fallback);
};

// The ReduceStage kind of a reduce op, if `kind` is one the Reduce fuser takes.
std::optional<ReduceStage::Kind> FusedReduceKind(OpKind kind);

}  // namespace ember
