#include "engine/runtime/cuda/backend/op_trace_cache.h"

#include <utility>

#include "engine/runtime/cuda/backend/op_traces.h"
#include "engine/trace/trace_serial.h"

namespace ember::cuda {
namespace {

// The first word of each key says which kind of trace it is.
enum class TraceKind : int64_t { kElementwise, kCopy, kReduce };

}  // namespace

size_t OpTraceCache::KeyHash::operator()(const Key& key) const {
  uint64_t h = 0xcbf29ce484222325ull;
  for (int64_t w : key) h = (h ^ static_cast<uint64_t>(w)) * 0x100000001b3ull;
  return h;
}

template <typename Build>
const KeyedTrace& OpTraceCache::Get(const Key& key, Build&& build) {
  if (const auto it = traces_.find(key); it != traces_.end()) return *it->second;
  if (traces_.size() >= kMaxTraces) traces_.clear();
  auto fresh = std::make_unique<KeyedTrace>(KeyedTrace{build(), NewTraceSerial()});
  return *traces_.emplace(key, std::move(fresh)).first->second;
}

const KeyedTrace& OpTraceCache::Elementwise(const OperationIr& op) {
  const TensorIr& out = op.outputs.at(0);
  Key key{static_cast<int64_t>(TraceKind::kElementwise),
          static_cast<int64_t>(op.kind),
          static_cast<int64_t>(out.dtype),
          static_cast<int64_t>(out.shape.size()),
          static_cast<int64_t>(op.scalars.size()),
          static_cast<int64_t>(op.inputs.size())};
  for (const TensorIr& in : op.inputs) {
    key.push_back(static_cast<int64_t>(in.dtype));
    key.push_back(static_cast<int64_t>(in.shape.size()));
  }
  return Get(key, [&] { return ElementwiseTrace(op); });
}

const KeyedTrace& OpTraceCache::Copy(DType dtype, size_t rank) {
  const Key key{static_cast<int64_t>(TraceKind::kCopy), static_cast<int64_t>(dtype),
                static_cast<int64_t>(rank)};
  return Get(key, [&] { return CopyTrace(dtype, rank); });
}

const KeyedTrace& OpTraceCache::Reduce(ReduceStage::Kind kind, DType input, DType output,
                                       int64_t axis, size_t rank) {
  const Key key{static_cast<int64_t>(TraceKind::kReduce),
                static_cast<int64_t>(kind),
                static_cast<int64_t>(input),
                static_cast<int64_t>(output),
                axis,
                static_cast<int64_t>(rank)};
  return Get(key, [&] { return ReduceTrace(kind, input, output, axis, rank); });
}

}  // namespace ember::cuda
