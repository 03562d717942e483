// Whether the public API could have queued an op of a decoded plan, for the plan_execute fuzz
// target (plan_execute_fuzz.cpp): the rules of engine/api/tensor_*.cpp (dtype classes, numpy
// broadcasting, matmul inner dims, reshape element counts, expand and slice extents, axes, a
// permutation) on relative shapes, with dims as DimOf (plan_execute_limits.h) chooses them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/ir/operation_ir.h"
#include "tests/fuzz/plan_execute_limits.h"

namespace ember::fuzz::plan_execute {

inline int64_t Elements(const Shape& relative) {
  int64_t n = 1;
  for (int64_t id : relative) n *= DimOf(id);
  return n;
}

inline bool Known(DType d) { return static_cast<int>(d) < kNumDTypes; }
inline bool Numeric(DType d) { return Known(d) && d != DType::kBool; }
inline bool Float(DType d) { return Known(d) && IsFloat(d); }
inline bool Int(DType d) { return Known(d) && IsInt(d); }

// Numpy broadcasting of relative shapes (aligned on the right; id 0, dim 1, stretches). The
// dims are an injective function of the ids, so equal ids are exactly equal dims.
inline std::optional<Shape> Broadcast(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 0);
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t x = i < out.size() - a.size() ? 0 : a[i - (out.size() - a.size())];
    const int64_t y = i < out.size() - b.size() ? 0 : b[i - (out.size() - b.size())];
    if (x != y && x != 0 && y != 0) return std::nullopt;
    out[i] = x != 0 ? x : y;
  }
  return out;
}

inline bool Is(const std::optional<Shape>& shape, const Shape& want) {
  return shape && *shape == want;
}

inline bool AxisOk(int64_t axis, size_t rank) {
  return axis >= 0 && static_cast<size_t>(axis) < rank;
}

// Whether the public API could have queued `op` (relative form; statuses are checked by the
// caller): the rules of engine/api/tensor_*.cpp, on dims as chosen by DimOf.
inline bool ApiCouldQueue(const OperationIr& op) {
  const std::vector<TensorIr>& in = op.inputs;
  const TensorIr& out = op.outputs.empty() ? in.at(0) : op.outputs[0];
  auto same = [&](const TensorIr& t) { return t.shape == out.shape && t.dtype == out.dtype; };
  switch (op.kind) {
    case OpKind::kInit:
    case OpKind::kZeros:
    case OpKind::kOnes:
    case OpKind::kFull: return true;
    case OpKind::kDrop: return in[0].status == TensorStatus::kReadWrite;
    case OpKind::kRandom:
    case OpKind::kCat:
    case OpKind::kGather:
    case OpKind::kSelect: return false;  // not materialized (header comment)
    case OpKind::kExp:
    case OpKind::kLog:
    case OpKind::kLog1p:
    case OpKind::kSqrt:
    case OpKind::kRecip:
    case OpKind::kSin:
    case OpKind::kCos:
    case OpKind::kTanh:
    case OpKind::kErf: return Float(in[0].dtype) && same(in[0]);
    case OpKind::kAbs:
    case OpKind::kNeg: return Numeric(in[0].dtype) && same(in[0]);
    case OpKind::kBitwiseNot: return Int(in[0].dtype) && same(in[0]);
    case OpKind::kCast: return in[0].shape == out.shape && in[0].dtype != out.dtype;
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
    case OpKind::kDiv:
    case OpKind::kRem:
    case OpKind::kPowf:
    case OpKind::kEqual:
    case OpKind::kLower:
    case OpKind::kGreater:
    case OpKind::kLowerEqual:
    case OpKind::kGreaterEqual: {
      const bool compare = op.kind >= OpKind::kEqual;
      const bool accepts = op.kind == OpKind::kPowf    ? Float(in[0].dtype)
                           : op.kind == OpKind::kEqual ? true
                                                       : Numeric(in[0].dtype);
      return accepts && in[0].dtype == in[1].dtype &&
             out.dtype == (compare ? DType::kBool : in[0].dtype) &&
             Is(Broadcast(in[0].shape, in[1].shape), out.shape);
    }
    case OpKind::kAddScalar:
    case OpKind::kSubScalar:
    case OpKind::kMulScalar:
    case OpKind::kDivScalar:
    case OpKind::kRemScalar:
    case OpKind::kPowfScalar:
    case OpKind::kEqualElem:
    case OpKind::kLowerElem:
    case OpKind::kGreaterElem:
    case OpKind::kLowerEqualElem:
    case OpKind::kGreaterEqualElem: {
      const bool compare = op.kind >= OpKind::kEqualElem;
      const bool accepts = op.kind == OpKind::kPowfScalar  ? Float(in[0].dtype)
                           : op.kind == OpKind::kEqualElem ? true
                                                           : Numeric(in[0].dtype);
      return accepts && in[0].shape == out.shape &&
             out.dtype == (compare ? DType::kBool : in[0].dtype);
    }
    case OpKind::kBitwiseAnd:
    case OpKind::kBitwiseOr:
    case OpKind::kBitwiseXor:
    case OpKind::kBitwiseLeftShift:
    case OpKind::kBitwiseRightShift:
      return Int(in[0].dtype) && in[0].dtype == in[1].dtype && out.dtype == in[0].dtype &&
             Is(Broadcast(in[0].shape, in[1].shape), out.shape);
    case OpKind::kBitwiseAndScalar:
    case OpKind::kBitwiseOrScalar:
    case OpKind::kBitwiseXorScalar:
    case OpKind::kBitwiseLeftShiftScalar:
    case OpKind::kBitwiseRightShiftScalar:
      return Int(in[0].dtype) && in[0].shape == out.shape && out.dtype == in[0].dtype;
    case OpKind::kClamp: return Numeric(in[0].dtype) && same(in[0]);
    case OpKind::kMaskWhere: {
      if (in[1].dtype != DType::kBool || in[0].dtype != in[2].dtype || out.dtype != in[0].dtype) {
        return false;
      }
      const std::optional<Shape> xm = Broadcast(in[0].shape, in[1].shape);
      return xm && Is(Broadcast(*xm, in[2].shape), out.shape);
    }
    case OpKind::kMaskFill:
      return in[1].dtype == DType::kBool && out.dtype == in[0].dtype &&
             Is(Broadcast(in[0].shape, in[1].shape), out.shape);
    case OpKind::kReshape:
      return out.dtype == in[0].dtype && Elements(in[0].shape) == Elements(out.shape);
    case OpKind::kSwapDims: {
      const size_t rank = in[0].shape.size();
      if (!AxisOk(op.dims[0], rank) || !AxisOk(op.dims[1], rank)) return false;
      Shape swapped = in[0].shape;
      std::swap(swapped[static_cast<size_t>(op.dims[0])], swapped[static_cast<size_t>(op.dims[1])]);
      return out.dtype == in[0].dtype && swapped == out.shape;
    }
    case OpKind::kPermute: {
      const size_t rank = in[0].shape.size();
      if (op.dims.size() != rank || out.shape.size() != rank || out.dtype != in[0].dtype) {
        return false;
      }
      std::vector<bool> seen(rank, false);
      for (size_t i = 0; i < rank; ++i) {
        if (!AxisOk(op.dims[i], rank) || seen[static_cast<size_t>(op.dims[i])]) return false;
        seen[static_cast<size_t>(op.dims[i])] = true;
        if (out.shape[i] != in[0].shape[static_cast<size_t>(op.dims[i])]) return false;
      }
      return true;
    }
    case OpKind::kExpand: {
      const Shape& from = in[0].shape;
      if (out.shape.size() < from.size() || out.dtype != in[0].dtype) return false;
      const size_t lead = out.shape.size() - from.size();
      for (size_t i = lead; i < out.shape.size(); ++i) {
        if (from[i - lead] != 0 && from[i - lead] != out.shape[i]) return false;
      }
      return true;
    }
    case OpKind::kSlice: {
      const Shape& from = in[0].shape;
      if (op.ranges.size() > from.size() || out.shape.size() != from.size() ||
          out.dtype != in[0].dtype) {
        return false;
      }
      for (size_t i = 0; i < from.size(); ++i) {
        if (i < op.ranges.size() ? DimOf(out.shape[i]) > DimOf(from[i]) : out.shape[i] != from[i]) {
          return false;
        }
      }
      return true;
    }
    case OpKind::kSumDim:
    case OpKind::kMeanDim:
    case OpKind::kProdDim:
    case OpKind::kMaxDim:
    case OpKind::kMinDim:
    case OpKind::kArgMax:
    case OpKind::kArgMin: {
      if (!Numeric(in[0].dtype) || !AxisOk(op.dims[0], in[0].shape.size())) return false;
      Shape reduced = in[0].shape;
      reduced[static_cast<size_t>(op.dims[0])] = 0;
      const bool arg = op.kind == OpKind::kArgMax || op.kind == OpKind::kArgMin;
      return reduced == out.shape && out.dtype == (arg ? DType::kI64 : in[0].dtype);
    }
    case OpKind::kSum:
    case OpKind::kMean:
      return Numeric(in[0].dtype) && out.shape == Shape{0} && out.dtype == in[0].dtype;
    case OpKind::kMatmul: {
      const Shape& a = in[0].shape;
      const Shape& b = in[1].shape;
      if (!Numeric(in[0].dtype) || in[0].dtype != in[1].dtype || out.dtype != in[0].dtype ||
          a.size() < 2 || b.size() < 2 || a[a.size() - 1] != b[b.size() - 2]) {
        return false;
      }
      std::optional<Shape> batch =
          Broadcast(Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2));
      if (!batch) return false;
      batch->push_back(a[a.size() - 2]);
      batch->push_back(b[b.size() - 1]);
      return *batch == out.shape;
    }
  }
  return false;
}

}  // namespace ember::fuzz::plan_execute
