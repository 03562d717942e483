#include "engine/ir/relative.h"

#include "engine/core/check.h"
#include "engine/ir/op_group.h"

namespace ember {

OperationConverter::OperationConverter() { Clear(); }

void OperationConverter::Clear() {
  tensors_relative2global_.clear();
  tensors_global2relative_.clear();
  // The dims' map is filled only past kScannedShapes: its clear() costs its buckets.
  if (!shapes_global2relative_.empty()) shapes_global2relative_.clear();
  shapes_relative2global_.clear();
  scalars_.clear();
  ranges_.clear();
  // Dim value 1 is always shape id 0 (Note [Relative form]).
  shapes_relative2global_.push_back(1);
}

int64_t OperationConverter::RelativeDim(int64_t value) {
  // A segment has a handful of distinct dims: while it has few, scanning them costs less than
  // hashing (issue 41's profile: RelativeDim was 5% of the cache-hit path). Past
  // kScannedShapes the map takes over, filled once from the list; either way a dim gets the
  // next id at its first sighting, so the ids are the same.
  const size_t known = shapes_relative2global_.size();
  if (known <= kScannedShapes) {
    for (size_t id = 0; id < known; ++id) {
      if (shapes_relative2global_[id] == value) return static_cast<int64_t>(id);
    }
    shapes_relative2global_.push_back(value);
    if (known == kScannedShapes) {
      for (size_t id = 0; id <= known; ++id) {
        shapes_global2relative_.emplace(shapes_relative2global_[id], static_cast<int64_t>(id));
      }
    }
    return static_cast<int64_t>(known);
  }
  auto [it, inserted] = shapes_global2relative_.try_emplace(value, static_cast<int64_t>(known));
  if (inserted) shapes_relative2global_.push_back(value);
  return it->second;
}

void OperationConverter::RelativeTensor(const TensorIr& global, TensorIr& relative) {
  // The id first, then the dims in order: this is what numbers shape ids.
  auto [it, inserted] = tensors_global2relative_.try_emplace(
      global.id, static_cast<TensorId>(tensors_relative2global_.size()));
  const TensorId relative_id = it->second;  // read now: RelativeDim does not touch this map
  relative.id = relative_id;
  relative.status = global.status;
  relative.dtype = global.dtype;
  relative.shape.clear();
  for (int64_t dim : global.shape) relative.shape.push_back(RelativeDim(dim));
  // The latest snapshot of a tensor wins: a later use may carry another status.
  if (inserted) {
    tensors_relative2global_.push_back(global);
  } else {
    tensors_relative2global_[relative_id] = global;
  }
}

ScalarIr OperationConverter::RelativeScalar(const ScalarIr& scalar) {
  const uint64_t index = scalars_.size();
  scalars_.push_back(scalar);
  return ScalarIr::UInt(index);
}

Slice OperationConverter::RelativeRange(const Slice& range) {
  const int64_t index = static_cast<int64_t>(ranges_.size());
  ranges_.push_back(range);
  return Slice{index, std::nullopt, 1};
}

void OperationConverter::InputsThenOutputs(const OperationIr& global, OperationIr& relative) {
  relative.kind = global.kind;
  relative.dtype = global.dtype;
  relative.dims.assign(global.dims.begin(), global.dims.end());
  relative.distribution = global.distribution;
  relative.inputs.resize(global.inputs.size());
  for (size_t i = 0; i < global.inputs.size(); ++i) {
    RelativeTensor(global.inputs[i], relative.inputs[i]);
  }
  relative.scalars.clear();
  for (const ScalarIr& s : global.scalars) relative.scalars.push_back(RelativeScalar(s));
  relative.ranges.clear();
  for (const Slice& r : global.ranges) relative.ranges.push_back(RelativeRange(r));
  relative.outputs.resize(global.outputs.size());
  for (size_t i = 0; i < global.outputs.size(); ++i) {
    RelativeTensor(global.outputs[i], relative.outputs[i]);
  }
}

OperationIr OperationConverter::ToRelative(const OperationIr& global) {
  OperationIr relative;
  ToRelative(global, relative);
  return relative;
}

void OperationConverter::ToRelative(const OperationIr& global, OperationIr& relative) {
  // Each case names the order in which burn visits the op's fields, from
  // crates/burn-fusion/src/stream/context.rs at tracel-ai/burn 2c06be35 (file:line). Tensor,
  // scalar and range counters are independent, so only the order within each kind matters;
  // for every kind below that order is `inputs` then `outputs` (Note [Op layouts]). A new
  // kind whose burn order differs from its inputs() order (MaxPool2dWithIndicesBackward
  // visits x, grad, indices; its inputs() lists x, indices, grad) gets its own case here.
  switch (GroupOf(global.kind)) {
    // Binary: lhs, rhs, out: Add :1105-1109, Sub :1115-1119, Mul :1145-1149, Div :1125-1129,
    // Rem :1135-1139, Powf :725-729, Equal :1510-1514, Lower :1219-1223, Greater :1195-1199,
    // LowerEqual :1229-1233, GreaterEqual :1205-1211.
    case OpGroup::kBinary:
    // Scalar: lhs, rhs (the scalar), out: AddScalar :1110-1114, SubScalar :1120-1124,
    // MulScalar :1150-1154, DivScalar :1130-1134, RemScalar :1140-1144, PowfScalar :735-739,
    // EqualElem :1515-1519, LowerElem :1224-1228, GreaterElem :1200-1204,
    // LowerEqualElem :1234-1240, GreaterEqualElem :1212-1218.
    case OpGroup::kScalar:
    // Unary: input, out: Abs :1155-1158, Neg :1360-1363, Exp :709-712, Log :713-716,
    // Log1p :717-720, Sqrt :740-743, Recip :816-819, Sin :748-751, Cos :744-747,
    // Tanh :752-755, Erf :721-724.
    case OpGroup::kUnary: return InputsThenOutputs(global, relative);
    case OpGroup::kSpecial: break;
  }
  switch (*SpecialOf(global.kind)) {
    case SpecialOp::kInit:    // out (:209, :1576-1582)
    case SpecialOp::kDrop:    // tensor (:210)
    case SpecialOp::kRandom:  // out; distribution verbatim (:812-815)
    case SpecialOp::kZeros:   // out (:1541, :1584-1590)
    case SpecialOp::kOnes:    // out (:1540, :1584-1590)
    case SpecialOp::kFull:    // out, value (:1159-1162)
      return InputsThenOutputs(global, relative);
    case SpecialOp::kMatmul:  // lhs, rhs, out (Float :801-805, Int :1002-1006)
    case SpecialOp::kCast:    // input, out (:1535-1538)
      return InputsThenOutputs(global, relative);
    case SpecialOp::kClamp:      // tensor, min, max, out (:1320-1325)
    case SpecialOp::kMaskWhere:  // tensor, mask, value, out (:1498-1503)
    case SpecialOp::kMaskFill:   // tensor, mask, value (scalar), out (:1504-1509)
      return InputsThenOutputs(global, relative);
    case SpecialOp::kReshape:   // input, out (:1406-1409)
    case SpecialOp::kExpand:    // input, out (:1421-1424)
    case SpecialOp::kSwapDims:  // input, out; dim1, dim2 verbatim (:1410-1415)
    case SpecialOp::kPermute:   // input, out; axes verbatim (:1416-1420)
    case SpecialOp::kSlice:     // tensor, ranges, out (:1437-1445, relative_range :179-187)
    case SpecialOp::kCat:       // tensors in order, out; dim verbatim (:1526-1534)
    case SpecialOp::kGather:    // tensor, indices, out; dim verbatim (:1456-1461)
    case SpecialOp::kSelect:    // tensor, indices, out; dim verbatim (:1482-1487)
      return InputsThenOutputs(global, relative);
    case SpecialOp::kSumDim:   // input, out; axis verbatim (:1177-1184)
    case SpecialOp::kMeanDim:  // (:1163-1168)
    case SpecialOp::kProdDim:  // (:1189-1194)
    case SpecialOp::kMaxDim:   // (:1298-1303)
    case SpecialOp::kMinDim:   // (:1304-1309)
    case SpecialOp::kArgMax:   // (:1241-1246)
    case SpecialOp::kArgMin:   // (:1259-1264)
    case SpecialOp::kSum:      // input, out (:1173-1176)
    case SpecialOp::kMean:     // (:1169-1172)
      return InputsThenOutputs(global, relative);
  }
  EMBER_CHECK(false, "ToRelative: op kind {} out of range", static_cast<int>(global.kind));
}

}  // namespace ember
