// MultiStream: the streams of one device (burn's MultiStream), one queue and processor per
// thread that queues ops on the device.
//
// Invariant: a queue never references a tensor whose home is another stream. A
// tensor used on another thread becomes a fresh id there that aliases the same buffer
// (TagSharedView); a read or drop from another thread never cuts or alters the home thread's
// pending segment, unless the tensor is not materialized yet (then the home stream drains).
// So what a stream queues, and hence its cache keys, depends on its own thread's ops only.
// burn's MultiStream (burn-fusion's stream/multi.rs) holds the same invariant.
//
// Threading: owned by the device server; every call happens under the server's lock.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/runtime/backend.h"
#include "engine/stream/operation_queue.h"
#include "engine/stream/plan_store.h"
#include "engine/stream/processor.h"
#include "engine/stream/stream_id.h"

namespace ember {

// How a read of a tensor must be served (burn's ReadPlan).
enum class ReadPlan {
  kDrain,      // a pending op still has to produce it: drain its stream first
  kDirect,     // read (and for a last use, free) right away
  kDeferFree,  // last use, but pending ops still reference it: read a ReadOnly view and free
               // it at the stream's next execution boundary
};

// Makes the prototype fusers of a new stream, in tie-break order (one list per stream: the
// search clones them per block).
using FuserFactory = std::function<std::vector<std::unique_ptr<OperationFuser>>()>;

class MultiStream {
 public:
  MultiStream(Backend& backend, FuserFactory fusers, SearchSettings settings)
      : backend_(backend), fusers_(std::move(fusers)), settings_(settings) {}

  // Queues `op` on `stream` (creating the stream) and runs its processor in Lazy mode.
  void Register(StreamId stream, OperationIr op, HandleContainer& handles);
  // Runs everything `stream` has queued (Sync mode), then flushes its deferred frees.
  void Drain(StreamId stream, HandleContainer& handles);
  // The stream's thread is exiting: drains it, and forgets it when no tensor of it is left
  // (so exited threads leave nothing behind).
  void Close(StreamId stream, HandleContainer& handles);
  // Makes `dst` an alias of `src` (home `src_stream`), draining that stream first when `src`
  // is not materialized and was not drained for before.
  void TagSharedView(StreamId src_stream, TensorId src, TensorId dst, HandleContainer& handles);

  ReadPlan PlanRead(StreamId stream, const TensorIr& tensor, const HandleContainer& handles) const;
  void DeferFree(StreamId stream, TensorIr tensor);
  // After a read: a ReadWrite read ends the tensor's life on its stream.
  void MarkRead(StreamId stream, const TensorIr& tensor);
  // A drop from another thread. Returns false when the tensor has no handle yet (the caller
  // then drains the home stream and queues a Drop there).
  bool ForeignDrop(StreamId stream, const TensorIr& tensor, HandleContainer& handles);

  // Inspection (tests, logs): the stream's queue, or nullptr when the stream does not exist.
  const OperationQueue* queue(StreamId stream) const;
  // The device's plans, shared by all its streams.
  const ExecutionPlanStore& store() const { return store_; }
  // Durable storage behind the device's plans (not owned; outlives this), or null.
  void SetPlanBacking(PlanBacking* backing) { store_.SetBacking(backing); }
  // What the processors of all streams did since the device started (streams that were
  // removed included).
  ProcessorCounters counters() const;
  ExecutionCounters execution_counters() const;
  // The last explained misses of all streams (removed ones included), oldest first.
  std::vector<std::string> recent_misses() const;
  size_t num_streams() const { return streams_.size(); }

 private:
  struct Stream {
    OperationQueue queue;
    Processor processor;
  };

  Stream& GetOrCreate(StreamId stream);
  // Runs `stream`'s processor, with the backend set to that stream (Backend::SetStream).
  void Process(StreamId id, Stream& stream, HandleContainer& handles, ExecutionMode mode);
  void RemoveIfIdle(StreamId stream);

  Backend& backend_;
  FuserFactory fusers_;
  SearchSettings settings_;
  ExecutionPlanStore store_;
  ProcessorCounters retired_;  // counters of removed streams
  ExecutionCounters retired_execution_;
  MissHistory retired_misses_;
  std::unordered_map<StreamId, Stream> streams_;
  std::unordered_set<TensorId> shared_sources_;
};

}  // namespace ember
