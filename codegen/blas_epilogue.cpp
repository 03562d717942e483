#include "codegen/blas_epilogue.h"

#include <bit>
#include <limits>
#include <map>
#include <vector>

#include "codegen/scalar_slots.h"

namespace ember::codegen {
namespace {

// The backward walk of Note [cuBLASLt epilogue match]: from the written value down to the
// matmul's local, consuming one op per step; every op of the block must be consumed.
class Walk {
 public:
  explicit Walk(const TraceLaunch& launch)
      : launch_(launch), block_(launch.trace->blocks[0]), used_(block_.ops.size(), false) {}

  BlasEpilogueResult Run() {
    const FuseTrace& trace = *launch_.trace;
    if (trace.blocks.size() != 1 || !trace.reduces.empty()) return Refuse("more than one block");
    if (trace.matmul->output.kind != FuseArgKind::kLocal || !IsF32(trace.matmul->output)) {
      return Refuse("the product is not an f32 local");
    }
    if (launch_.block_shapes.size() != 1 || launch_.block_shapes[0].size() < 2) {
      return Refuse("the product is not a matrix");
    }
    for (size_t k = 0; k < block_.ops.size(); ++k) {
      const FuseOp& op = block_.ops[k];
      if (op.out.kind != FuseArgKind::kLocal) return Refuse("an op writes a global directly");
      if (!defs_.emplace(op.out.pos, k).second) return Refuse("a local assigned twice");
    }
    if (block_.writes.size() != 1) return Refuse("more than one output");
    const FuseOp& write = block_.writes[0];
    if (write.kind != FuseOpKind::kAssign || write.out.kind != FuseArgKind::kOutput ||
        write.args[0].kind != FuseArgKind::kLocal || !IsF32(write.args[0]) || !IsF32(write.out)) {
      return Refuse("the write is not an f32 store of a local");
    }
    if (write.out.pos >= launch_.outputs.size() ||
        launch_.outputs[write.out.pos].dtype != DType::kF32) {
      return Refuse("the output is not f32");
    }
    const BoundTensor& out = launch_.outputs[write.out.pos];
    if (out.shape != launch_.block_shapes[0] || !IsContiguous(out)) {
      return Refuse("the output is not the product's contiguous shape");
    }
    BlasEpilogueMatch m{.output = write.out.pos};

    FuseArg x = write.args[0];
    bool relu = false;
    if (std::optional<FuseArg> below = Relu(x, &m.relu)) {
      relu = true;
      x = *below;
    } else if (!refusal_.empty()) {
      return Refuse(refusal_);
    }
    bool bias = false;
    if (std::optional<FuseArg> below = Bias(x, &m.bias_input)) {
      bias = true;
      x = *below;
    } else if (!refusal_.empty()) {
      return Refuse(refusal_);
    }
    if (std::optional<FuseArg> below = Alpha(x, &m.alpha)) {
      m.has_alpha = true;
      x = *below;
    } else if (!refusal_.empty()) {
      return Refuse(refusal_);
    }
    if (!(x == trace.matmul->output)) return Refuse("an op cuBLASLt has no epilogue for");
    for (bool u : used_) {
      if (!u) return Refuse("an op outside the epilogue chain");
    }
    if (block_.reads.size() != (bias ? 1u : 0u)) return Refuse("a read outside the bias");
    m.kind = bias ? (relu ? BlasEpilogueKind::kBiasRelu : BlasEpilogueKind::kBias)
                  : (relu ? BlasEpilogueKind::kRelu : BlasEpilogueKind::kNone);
    return {.match = m};
  }

 private:
  static bool IsF32(const FuseArg& a) { return a.dtype == DType::kF32; }

  // Row-major from element 0; a dim of size 1 may have any stride.
  static bool IsContiguous(const BoundTensor& t) {
    if (t.strides.size() != t.shape.size()) return false;
    int64_t s = 1;
    for (size_t d = t.shape.size(); d-- > 0;) {
      if (t.shape[d] != 1 && t.strides[d] != s) return false;
      s *= t.shape[d];
    }
    return true;
  }

  BlasEpilogueResult Refuse(std::string why) { return {.refusal = std::move(why)}; }

  // The op that defines local `a`, marked used, or null (not a local, or not defined by an op).
  const FuseOp* Def(const FuseArg& a) {
    if (a.kind != FuseArgKind::kLocal) return nullptr;
    auto it = defs_.find(a.pos);
    if (it == defs_.end()) return nullptr;
    if (used_[it->second]) {
      refusal_ = "an intermediate value used twice";
      return nullptr;
    }
    return &block_.ops[it->second];
  }
  void Use(const FuseOp* op) { used_[static_cast<size_t>(op - block_.ops.data())] = true; }

  // The f32 bits of a scalar slot as an op operand reads it, or nothing.
  std::optional<uint32_t> ScalarBits(const FuseArg& a) const {
    if (a.kind != FuseArgKind::kScalar || !IsF32(a) || a.pos >= launch_.scalars.size()) {
      return std::nullopt;
    }
    return static_cast<uint32_t>(ScalarSlotValue(launch_.scalars[a.pos], DType::kF32, false));
  }
  // +0.0f as a scalar slot, a literal, or a local a lone Assign gave one of those.
  bool IsPlusZero(const FuseArg& a) {
    if (!IsF32(a)) return false;
    if (a.kind == FuseArgKind::kLiteral) return a.pos == 0;
    if (std::optional<uint32_t> bits = ScalarBits(a)) return *bits == 0;
    if (a.kind != FuseArgKind::kLocal) return false;
    // A zero local may serve several zero operands (one Zeros tensor for both the mask and the
    // fill), so an already used one still counts.
    auto it = defs_.find(a.pos);
    if (it == defs_.end()) return false;
    const FuseOp& op = block_.ops[it->second];
    if (op.kind != FuseOpKind::kAssign || op.args[0].kind == FuseArgKind::kLocal ||
        !IsPlusZero(op.args[0])) {
      return false;
    }
    used_[it->second] = true;
    return true;
  }

  // Clamp(y, +0, +inf), or ConditionalAssign over y compared with +0 (Note [cuBLASLt epilogue
  // match]); returns y.
  std::optional<FuseArg> Relu(const FuseArg& v, ReluRule* rule) {
    const FuseOp* op = Def(v);
    if (op == nullptr) return std::nullopt;
    if (op->kind == FuseOpKind::kClamp) {
      const std::optional<uint32_t> hi = ScalarBits(op->args[2]);
      const uint32_t inf = std::bit_cast<uint32_t>(std::numeric_limits<float>::infinity());
      if (!IsF32(op->args[0]) || !IsPlusZero(op->args[1]) || hi != inf) {
        refusal_ = "a clamp other than [+0, +inf]";
        return std::nullopt;
      }
      Use(op);
      *rule = {.keeps_nan = true, .keeps_negative_zero = true};
      return op->args[0];
    }
    if (op->kind != FuseOpKind::kConditionalAssign) return std::nullopt;
    const FuseOp* cond = Def(op->args[0]);
    if (cond == nullptr || FormOf(cond->kind) != FuseOpForm::kComparison) {
      refusal_ = "a mask that is not a comparison with 0";
      return std::nullopt;
    }
    // The comparison as `y <op> 0`, whichever side y is on.
    FuseOpKind test = cond->kind;
    FuseArg y = cond->args[0];
    const bool zero_right = IsPlusZero(cond->args[1]);
    if (!zero_right) {
      if (!IsPlusZero(cond->args[0])) {
        refusal_ = "a mask that is not a comparison with 0";
        return std::nullopt;
      }
      y = cond->args[1];
      if (test == FuseOpKind::kLower)
        test = FuseOpKind::kGreater;
      else if (test == FuseOpKind::kGreater)
        test = FuseOpKind::kLower;
      else if (test == FuseOpKind::kLowerEqual)
        test = FuseOpKind::kGreaterEqual;
      else if (test == FuseOpKind::kGreaterEqual)
        test = FuseOpKind::kLowerEqual;
    }
    if (!IsF32(y) || y.kind != FuseArgKind::kLocal) {
      refusal_ = "a relu mask over a value that is not the product's";
      return std::nullopt;
    }
    const bool negative_test = test == FuseOpKind::kLower || test == FuseOpKind::kLowerEqual;
    const bool positive_test = test == FuseOpKind::kGreater || test == FuseOpKind::kGreaterEqual;
    // cond ? args[1] : args[2]: a negative test picks 0 when true, a positive one picks y.
    const FuseArg& taken = op->args[1];
    const FuseArg& other = op->args[2];
    const bool shaped = negative_test   ? (other == y && IsPlusZero(taken))
                        : positive_test ? (taken == y && IsPlusZero(other))
                                        : false;
    if (!shaped) {
      refusal_ = "a mask assignment that is not a relu";
      return std::nullopt;
    }
    Use(cond);
    Use(op);
    // NaN fails every comparison; -0 equals 0.
    switch (test) {
      case FuseOpKind::kLower: *rule = {.keeps_nan = true, .keeps_negative_zero = true}; break;
      case FuseOpKind::kLowerEqual:
        *rule = {.keeps_nan = true, .keeps_negative_zero = false};
        break;
      case FuseOpKind::kGreater: *rule = {.keeps_nan = false, .keeps_negative_zero = false}; break;
      default: *rule = {.keeps_nan = false, .keeps_negative_zero = true}; break;
    }
    return y;
  }

  // Add(x, bias) or Add(bias, x); returns x.
  std::optional<FuseArg> Bias(const FuseArg& v, int* bias_input) {
    const FuseOp* op = Def(v);
    if (op == nullptr || op->kind != FuseOpKind::kAdd) return std::nullopt;
    for (int side = 0; side < 2; ++side) {
      const FuseArg& b = op->args[side];
      const FuseArg& x = op->args[1 - side];
      if (b.kind != FuseArgKind::kLocal || defs_.contains(b.pos)) continue;
      // b must be the block's read of an input.
      for (const FuseOp& read : block_.reads) {
        if (read.out != b) continue;
        const FuseArg& from = read.args[0];
        if (read.kind != FuseOpKind::kAssign || from.kind != FuseArgKind::kInput || !IsF32(from) ||
            !IsF32(b)) {
          refusal_ = "an addend that is not an f32 input";
          return std::nullopt;
        }
        if (!RowBias(from.pos)) {
          refusal_ = "an addend that is not one row of N values for every row and batch";
          return std::nullopt;
        }
        if (!IsF32(x)) {
          refusal_ = "a non-f32 add";
          return std::nullopt;
        }
        Use(op);
        *bias_input = static_cast<int>(from.pos);
        return x;
      }
    }
    return std::nullopt;
  }

  bool RowBias(uint32_t input) const {
    if (input >= launch_.inputs.size()) return false;
    const BoundTensor& b = launch_.inputs[input];
    const Shape& out = launch_.block_shapes[0];
    if (b.dtype != DType::kF32 || b.shape.empty() || b.shape.size() > out.size() ||
        b.strides.size() != b.shape.size()) {
      return false;
    }
    const int64_t n = out.back();
    if (b.shape.back() != n || (n > 1 && b.strides.back() != 1)) return false;
    for (size_t d = 0; d + 1 < b.shape.size(); ++d) {
      if (b.shape[d] != 1) return false;
    }
    return true;
  }

  // Mul(x, s) or Mul(s, x); returns x.
  std::optional<FuseArg> Alpha(const FuseArg& v, float* alpha) {
    const FuseOp* op = Def(v);
    if (op == nullptr || op->kind != FuseOpKind::kMul) return std::nullopt;
    for (int side = 0; side < 2; ++side) {
      const std::optional<uint32_t> bits = ScalarBits(op->args[side]);
      const FuseArg& x = op->args[1 - side];
      if (!bits || !IsF32(x) || x.kind != FuseArgKind::kLocal) continue;
      Use(op);
      *alpha = std::bit_cast<float>(*bits);
      return x;
    }
    return std::nullopt;
  }

  const TraceLaunch& launch_;
  const FuseBlock& block_;
  std::vector<bool> used_;           // per block_.ops
  std::map<uint32_t, size_t> defs_;  // local -> the op that assigns it
  std::string refusal_;              // set when a step recognised its op but not its form
};

}  // namespace

std::string_view BlasEpilogueKindName(BlasEpilogueKind kind) {
  switch (kind) {
    case BlasEpilogueKind::kNone: return "none";
    case BlasEpilogueKind::kBias: return "bias";
    case BlasEpilogueKind::kRelu: return "relu";
    case BlasEpilogueKind::kBiasRelu: return "bias+relu";
  }
  return "?";
}

BlasEpilogueResult MatchBlasEpilogue(const TraceLaunch& launch) {
  if (launch.trace == nullptr || !launch.trace->matmul || launch.trace->blocks.empty()) {
    return {.refusal = "not a matmul trace"};
  }
  return Walk(launch).Run();
}

}  // namespace ember::codegen
