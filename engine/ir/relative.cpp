#include "engine/ir/relative.h"

#include "engine/core/check.h"

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
  switch (global.kind) {
    case OpKind::kInit:    // out (:209, :1576-1582)
    case OpKind::kDrop:    // tensor (:210)
    case OpKind::kRandom:  // out; distribution verbatim (:812-815)
    case OpKind::kZeros:   // out (:1541, :1584-1590)
    case OpKind::kOnes:    // out (:1540, :1584-1590)
    case OpKind::kFull:    // out, value (:1159-1162)
      return InputsThenOutputs(global, relative);
    case OpKind::kAdd:           // lhs, rhs, out (:1105-1109)
    case OpKind::kSub:           // (:1115-1119)
    case OpKind::kMul:           // (:1145-1149)
    case OpKind::kDiv:           // (:1125-1129)
    case OpKind::kRem:           // (:1135-1139)
    case OpKind::kPowf:          // (:725-729)
    case OpKind::kEqual:         // (:1510-1514)
    case OpKind::kLower:         // (:1219-1223)
    case OpKind::kGreater:       // (:1195-1199)
    case OpKind::kLowerEqual:    // (:1229-1233)
    case OpKind::kGreaterEqual:  // (:1205-1211)
    case OpKind::kMatmul:        // lhs, rhs, out (Float :801-805, Int :1002-1006)
      return InputsThenOutputs(global, relative);
    case OpKind::kAddScalar:         // lhs, rhs (scalar), out (:1110-1114)
    case OpKind::kSubScalar:         // (:1120-1124)
    case OpKind::kMulScalar:         // (:1150-1154)
    case OpKind::kDivScalar:         // (:1130-1134)
    case OpKind::kRemScalar:         // (:1140-1144)
    case OpKind::kPowfScalar:        // (:735-739)
    case OpKind::kEqualElem:         // (:1515-1519)
    case OpKind::kLowerElem:         // (:1224-1228)
    case OpKind::kGreaterElem:       // (:1200-1204)
    case OpKind::kLowerEqualElem:    // (:1234-1240)
    case OpKind::kGreaterEqualElem:  // (:1212-1218)
      return InputsThenOutputs(global, relative);
    case OpKind::kAbs:    // input, out (:1155-1158)
    case OpKind::kNeg:    // (:1360-1363)
    case OpKind::kExp:    // (:709-712)
    case OpKind::kLog:    // (:713-716)
    case OpKind::kLog1p:  // (:717-720)
    case OpKind::kSqrt:   // (:740-743)
    case OpKind::kRecip:  // (:816-819)
    case OpKind::kSin:    // (:748-751)
    case OpKind::kCos:    // (:744-747)
    case OpKind::kTanh:   // (:752-755)
    case OpKind::kErf:    // (:721-724)
    case OpKind::kCast:   // (:1535-1538)
      return InputsThenOutputs(global, relative);
    case OpKind::kClamp:      // tensor, min, max, out (:1320-1325)
    case OpKind::kMaskWhere:  // tensor, mask, value, out (:1498-1503)
    case OpKind::kMaskFill:   // tensor, mask, value (scalar), out (:1504-1509)
      return InputsThenOutputs(global, relative);
    case OpKind::kReshape:   // input, out (:1406-1409)
    case OpKind::kExpand:    // input, out (:1421-1424)
    case OpKind::kSwapDims:  // input, out; dim1, dim2 verbatim (:1410-1415)
    case OpKind::kPermute:   // input, out; axes verbatim (:1416-1420)
    case OpKind::kSlice:     // tensor, ranges, out (:1437-1445, relative_range :179-187)
    case OpKind::kCat:       // tensors in order, out; dim verbatim (:1526-1534)
    case OpKind::kGather:    // tensor, indices, out; dim verbatim (:1456-1461)
    case OpKind::kSelect:    // tensor, indices, out; dim verbatim (:1482-1487)
      return InputsThenOutputs(global, relative);
    case OpKind::kSumDim:   // input, out; axis verbatim (:1177-1184)
    case OpKind::kMeanDim:  // (:1163-1168)
    case OpKind::kProdDim:  // (:1189-1194)
    case OpKind::kMaxDim:   // (:1298-1303)
    case OpKind::kMinDim:   // (:1304-1309)
    case OpKind::kArgMax:   // (:1241-1246)
    case OpKind::kArgMin:   // (:1259-1264)
    case OpKind::kSum:      // input, out (:1173-1176)
    case OpKind::kMean:     // (:1169-1172)
      return InputsThenOutputs(global, relative);
  }
  EMBER_CHECK(false, "ToRelative: op kind {} out of range", static_cast<int>(global.kind));
}

}  // namespace ember
