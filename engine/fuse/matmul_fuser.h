// MatmulFuser: a matmul followed by elementwise ops written by the same kernel (its epilogue;
// burn's MatmulFuser, burn-cubecl-fusion's optim/matmul/fuser.rs). The first op must be a float
// Matmul (burn matches Float(_, FloatOperationIr::Matmul) only: an integer matmul closes it),
// whose operands the kernel reads itself and whose result becomes a local of the epilogue block;
// later ops must be accepted by the epilogue fuser (no reference growth) and by a fresh fallback
// fuser. Ready once one epilogue op is in; scored by the epilogue alone (the matmul is not scored);
// len counts the matmul. Ops before the matmul are never absorbed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "engine/fuse/fuser.h"
#include "engine/fuse/trace_op_fuser.h"

namespace ember {

class MatmulFuser final : public OperationFuser {
 public:
  static constexpr std::string_view kName = "Matmul";
  // What the environment fingerprint records for it (Note [Environment fingerprint]): raised
  // whenever what it accepts or builds changes, so that no plan found by the old rules is
  // served. 2: burn's conversion rule for Cast (CastIsFusable, trace_op_fuser.h), and float matmuls
  // only. 3: Gather, Select and Cat as indexed inputs of the epilogue (Note [Indexed inputs]).
  static constexpr uint32_t kVersion = 3;

  explicit MatmulFuser(uint32_t max_bindings);

  void Fuse(const OperationIr& op) override;
  std::shared_ptr<Optimization> Finish() override;
  void Reset() override;
  FuserStatus status() const override { return fuser_.status(); }
  FuserProperties properties() const override { return fuser_.properties(); }
  size_t len() const override { return fuser_.len() + 1; }
  std::unique_ptr<OperationFuser> Clone() const override;

 private:
  uint32_t max_bindings_;
  TraceOpFuser fuser_;
  TraceOpFuser fallback_;
  std::optional<MatmulStage> matmul_;
};

}  // namespace ember
