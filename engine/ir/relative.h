// OperationConverter: turns global ops (real tensor ids, dim sizes, scalar values, slice bounds)
// into their relative form, and keeps the real values aside for whoever executes the ops
// (burn's OperationConverter, crates/burn-fusion/src/stream/context.rs).
//
// One converter belongs to one OperationQueue and is used by that queue's thread only; it has
// no locks. The queue calls ToRelative once per op in submission order and Clear() whenever
// the queue head moves (after every execution), then converts the remaining ops again.
//
// Note [Relative form]
// The plan cache must recognise "the same program again" although every run hands out fresh
// tensor ids, sizes may change between calls and scalars (a learning rate, a step count)
// change all the time. Plans are therefore keyed on a relative form of the queued ops:
//   * tensor ids are renumbered 0, 1, 2, ... in order of first appearance;
//   * each dim becomes a shape id, given per distinct dim *value* in order of first appearance;
//     the value 1 is always id 0 (seeded on construction and by every Clear()), because 1
//     means "broadcast" to a fuser and must never share an id with a real extent. So [64,64]
//     and [32,32] are both [1,1], while [64,32] is [1,2]: the relative shape records which
//     dims are equal across the segment, which is all that fusion decisions depend on;
//   * every scalar (any kind, Bool included) becomes the placeholder UInt(k), and every slice
//     range becomes Slice{k, nullopt, 1}; k counts scalars (resp. ranges) seen so far. The
//     real values are kept here and bound again when a fused kernel runs;
//   * status (NotInit / ReadOnly / ReadWrite) and dtype are kept: liveness decides which
//     buffers a plan may reuse, so the same graph with other last uses is another plan;
//   * integer attributes (axes, Cat dim, Permute axes), the Random distribution and the op's
//     family dtype are copied verbatim: they change what a kernel computes.
// The frame is the whole queue since the last Clear(), not one op: relative id 2 in op 3 is
// the same tensor as relative id 2 in op 1, which is how a plan records its data flow. Plans
// only ever match at the queue head (engine/stream/policy.h), so after an execution drains a prefix
// the queue clears this converter and converts the remaining ops again: they must look
// exactly as they would had they been submitted to an empty queue.
//
// The visiting order fixes the numbering. Tensors, scalars and ranges have independent
// counters, so only the order within each kind matters. For every ember op kind burn visits
// the tensors in inputs() order and then the outputs (e.g. Gather: tensor, indices, out;
// Full: out, then value), which is Note [Op layouts]; relative.cpp cites burn per kind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <ember/slice.h>

#include "engine/core/flat_map.h"
#include "engine/ir/operation_ir.h"

namespace ember {

class OperationConverter {
 public:
  OperationConverter();

  // The relative form of `global` in the frame of every op converted since construction or
  // the last Clear(). Records the real tensors, dims, scalars and ranges it replaces.
  // REQUIRES: `global` has the layout of its kind (ValidateOperation).
  OperationIr ToRelative(const OperationIr& global);
  // The same, written over `relative`: its lists keep their capacity, so a queue that converts
  // into the storage of ops it converted before allocates nothing (OperationQueue).
  void ToRelative(const OperationIr& global, OperationIr& relative);

  // Starts a new frame: forgets every mapping and re-seeds dim value 1 <-> shape id 0.
  void Clear();

  // Shape ids handed out so far, the seeded id 0 included (so at least 1). A plan naming a
  // shape id at or above this cannot fit the current queue (OperationQueue::Execute,
  // engine/stream/operation_queue.h, then runs the plan's ops unfused).
  size_t NumRelativeShapes() const { return shapes_relative2global_.size(); }

  // Index = relative tensor id; the global snapshot of that tensor at its latest use.
  const std::vector<TensorIr>& tensors_relative2global() const { return tensors_relative2global_; }
  // Index = relative shape id; the real dim value (index 0 holds 1).
  const std::vector<int64_t>& shapes_relative2global() const { return shapes_relative2global_; }
  // Index = scalar placeholder k; the real scalar.
  const std::vector<ScalarIr>& scalars() const { return scalars_; }
  // Index = range placeholder k; the real slice.
  const std::vector<Slice>& ranges() const { return ranges_; }

 private:
  void RelativeTensor(const TensorIr& global, TensorIr& relative);
  int64_t RelativeDim(int64_t value);
  ScalarIr RelativeScalar(const ScalarIr& scalar);
  Slice RelativeRange(const Slice& range);
  // The one visiting order every current op kind uses (see ToRelative).
  void InputsThenOutputs(const OperationIr& global, OperationIr& relative);

  std::vector<TensorIr> tensors_relative2global_;
  // Only the relative id is needed from burn's global -> relative TensorIr map.
  FlatMap<TensorId, TensorId> tensors_global2relative_;
  // Dims are found by scanning shapes_relative2global_ while it holds at most kScannedShapes;
  // the map holds them all from then on (RelativeDim).
  static constexpr size_t kScannedShapes = 16;
  FlatMap<int64_t, int64_t> shapes_global2relative_;
  std::vector<int64_t> shapes_relative2global_;
  std::vector<ScalarIr> scalars_;
  std::vector<Slice> ranges_;
};

}  // namespace ember
