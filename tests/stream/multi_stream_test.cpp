// MultiStream (burn-fusion's stream/multi.rs): cross-stream reads, drops and shared views, driven
// directly with the CPU backend (no Tensor API). burn's tests (multi.rs:622-815) use a
// NeverReadyFuser so that ops accumulate until an explicit drain; ember's foundation Processor
// plays that role: Lazy mode keeps ops queued until Processor::kMaxPendingOps are waiting, and
// these tests never queue that many.
//
// Differences from burn's harness: burn registers test handles without queuing anything, while
// here an upload is what the API does (DeviceServer::RegisterInit): the handle is registered and
// an Init op is queued on the uploading stream. Tests that need an idle stream drain it first.
#include "engine/stream/multi_stream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "engine/ir/builders.h"
#include "engine/runtime/cpu/cpu_backend.h"
#include "tests/stream/stream_test_util.h"

namespace ember {
namespace {

using stream_test::Iota;
using stream_test::kShape;
using stream_test::MakeHandle;
using stream_test::ReadValues;
using test::Ro;
using test::Rw;

// burn's TestSetup: one device (backend + handle container + MultiStream) and a home stream.
struct Harness : stream_test::StreamDevice {
  const StreamId home = CurrentStreamId();
  // Other threads' streams; only their ids matter here.
  const StreamId peer = home + 1000;
  const StreamId grandpeer = home + 2000;

  size_t NumPending(StreamId stream) const {
    const OperationQueue* queue = streams.queue(stream);
    return queue == nullptr ? 0 : queue->size();
  }

  // The relative op sequence that composition and cache keys derive from.
  std::vector<OperationIr> Composition(StreamId stream) const {
    const OperationQueue* queue = streams.queue(stream);
    return queue == nullptr ? std::vector<OperationIr>{} : queue->relative();
  }

  bool HasVariable(StreamId stream, TensorId id) const {
    const OperationQueue* queue = streams.queue(stream);
    return queue != nullptr && queue->variables().count(id) != 0;
  }

  // As DeviceServer::Read for a consuming (ReadWrite) read of a materialized tensor (burn's
  // TestSetup::consuming_read).
  void ConsumingRead(StreamId stream, TensorId id) {
    TensorIr ir = Rw(id, kShape);
    switch (streams.PlanRead(stream, ir, handles)) {
      case ReadPlan::kDrain: ADD_FAILURE() << "materialized tensor must not force a drain"; return;
      case ReadPlan::kDirect: break;
      case ReadPlan::kDeferFree:
        streams.DeferFree(stream, ir);
        ir.status = TensorStatus::kReadOnly;
        break;
    }
    ReadValues(*backend, handles.Get(ir));
    streams.MarkRead(stream, ir);
  }

  std::vector<float> Values(TensorId id) {
    const TensorHandle* handle = handles.Peek(id);
    if (handle == nullptr) {
      ADD_FAILURE() << "t" << id << " has no handle";
      return {};
    }
    return ReadValues(*backend, *handle);
  }

  const Buffer* BufferOf(TensorId id) const {
    const TensorHandle* handle = handles.Peek(id);
    return handle == nullptr ? nullptr : handle->buffer.get();
  }
};

std::vector<float> ExpOfIota() {
  std::vector<float> values;
  for (float v : Iota(kShape)) values.push_back(std::exp(v));
  return values;
}

// Kernels may round exp differently from <cmath>.
void ExpectNear(const std::vector<float>& actual, const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], 1e-5f * std::abs(expected[i])) << "element " << i;
  }
}

// --- composition does not depend on when a foreign event lands (multi.rs:596-680) ----------

struct Edge {
  TensorId input;
  TensorId out;
};

using Event = std::function<void(Harness&)>;

// burn's compose_with_injection: `shared` and t0 are uploaded on the home stream and drained
// (materialized, home queue empty); then Exp(input -> out) is registered for each edge, with
// `inject` run before the inject_at-th registration (after all of them when inject_at ==
// ops.size()). Returns the home stream's composition.
std::vector<OperationIr> ComposeWithInjection(TensorId shared, const std::vector<Edge>& ops,
                                              std::optional<size_t> inject_at,
                                              const Event& inject) {
  Harness h;
  h.Upload(h.home, shared);
  h.Upload(h.home, 0);
  h.Drain(h.home);
  for (size_t i = 0; i < ops.size(); ++i) {
    if (inject_at == i) inject(h);
    h.Exp(h.home, Ro(ops[i].input, kShape), ops[i].out);
  }
  if (inject_at == ops.size()) inject(h);
  return h.Composition(h.home);
}

void ExpectCompositionIndependentOfInjection(TensorId shared, const std::vector<Edge>& ops,
                                             size_t first_point, const Event& inject) {
  const std::vector<OperationIr> baseline = ComposeWithInjection(shared, ops, std::nullopt, inject);
  ASSERT_EQ(baseline.size(), ops.size()) << "nothing may cut the pending segment";
  for (size_t at = first_point; at <= ops.size(); ++at) {
    EXPECT_EQ(ComposeWithInjection(shared, ops, at, inject), baseline)
        << "event injected before op " << at;
  }
}

TEST(MultiStream, ForeignDropTimingDoesNotChangeComposition) {
  const TensorId shared = 100;
  const Event drop_shared = [shared](Harness& h) {
    EXPECT_TRUE(h.streams.ForeignDrop(h.home, Rw(shared, kShape), h.handles))
        << "materialized tensor must not fall back to the queue";
  };
  // The pending ops never reference the shared tensor.
  ExpectCompositionIndependentOfInjection(shared, {{0, 1}, {1, 2}, {2, 3}}, 0, drop_shared);
  // The first pending op reads the shared tensor; the drop can only arrive after it.
  ExpectCompositionIndependentOfInjection(shared, {{shared, 1}, {1, 2}, {2, 3}}, 1, drop_shared);
}

TEST(MultiStream, ConsumingReadTimingDoesNotChangeComposition) {
  const TensorId shared = 100;
  const Event read_shared = [shared](Harness& h) { h.ConsumingRead(h.home, shared); };
  ExpectCompositionIndependentOfInjection(shared, {{0, 1}, {1, 2}, {2, 3}}, 0, read_shared);
  ExpectCompositionIndependentOfInjection(shared, {{shared, 1}, {1, 2}, {2, 3}}, 1, read_shared);
}

// --- PlanRead (multi.rs:682-745) ------------------------------------------------------------

TEST(MultiStream, ReadOfUnmaterializedTensorMustDrain) {
  Harness h;
  h.Upload(h.home, 0);
  h.Exp(h.home, Ro(0, kShape), 1);
  // t1's producer is still pending: only the queue can order the read.
  EXPECT_EQ(h.streams.PlanRead(h.home, Rw(1, kShape), h.handles), ReadPlan::kDrain);
  EXPECT_EQ(h.streams.PlanRead(h.home, Ro(1, kShape), h.handles), ReadPlan::kDrain);
  EXPECT_EQ(h.NumPending(h.home), 2u) << "planning a read executes nothing";
}

TEST(MultiStream, ReadOfReferencedTensorDefersFreeUntilTheNextDrain) {
  Harness h;
  h.Upload(h.home, 0);
  h.Exp(h.home, Ro(0, kShape), 1);
  ASSERT_EQ(h.NumPending(h.home), 2u);  // Init(t0), Exp(t0 -> t1)
  const std::vector<OperationIr> before = h.Composition(h.home);

  // Materialized, but a pending op still reads it: the free must wait.
  EXPECT_EQ(h.streams.PlanRead(h.home, Rw(0, kShape), h.handles), ReadPlan::kDeferFree);
  h.streams.DeferFree(h.home, Rw(0, kShape));
  EXPECT_TRUE(h.handles.Has(0)) << "still readable by the kernel";
  EXPECT_EQ(h.Composition(h.home), before) << "composition must not be cut";

  h.Drain(h.home);
  EXPECT_TRUE(h.handles.Has(1)) << "producer ran";
  EXPECT_FALSE(h.handles.Has(0)) << "freed at the boundary";
  EXPECT_FALSE(h.HasVariable(h.home, 0));
  ExpectNear(h.Values(1), ExpOfIota());
}

TEST(MultiStream, ReadOnlyReadOfReferencedTensorIsDirect) {
  Harness h;
  h.Upload(h.home, 0);
  h.Exp(h.home, Ro(0, kShape), 1);
  // Not a last use: nothing to free, so nothing to defer.
  EXPECT_EQ(h.streams.PlanRead(h.home, Ro(0, kShape), h.handles), ReadPlan::kDirect);
}

TEST(MultiStream, DrainOfAnEmptyQueueStillFlushesDeferredFrees) {
  Harness h;
  h.Upload(h.home, 0);
  h.Exp(h.home, Ro(0, kShape), 1);
  h.Drain(h.home);
  ASSERT_EQ(h.NumPending(h.home), 0u);
  ASSERT_NE(h.streams.queue(h.home), nullptr) << "stale variables keep the stream";

  h.streams.DeferFree(h.home, Rw(0, kShape));
  EXPECT_TRUE(h.handles.Has(0));
  h.Drain(h.home);  // a drain is a boundary even when nothing is queued
  EXPECT_FALSE(h.handles.Has(0));
  EXPECT_FALSE(h.HasVariable(h.home, 0));
}

TEST(MultiStream, ReadOfUnreferencedTensorIsDirectEvenOnAnIdleStream) {
  Harness h;
  h.Upload(h.home, 0);
  h.Exp(h.home, Ro(0, kShape), 1);
  h.Drain(h.home);
  ASSERT_EQ(h.NumPending(h.home), 0u);
  // Queue empty, only a stale variables entry remains for t0: deferring could park the free
  // forever, so free directly.
  EXPECT_EQ(h.streams.PlanRead(h.home, Rw(0, kShape), h.handles), ReadPlan::kDirect);
}

TEST(MultiStream, ConsumingReadOfTheLastVariableRemovesTheStream) {
  Harness h;
  h.Upload(h.home, 0);
  h.Drain(h.home);
  ASSERT_TRUE(h.HasVariable(h.home, 0));
  h.ConsumingRead(h.home, 0);
  EXPECT_FALSE(h.handles.Has(0));
  EXPECT_EQ(h.streams.queue(h.home), nullptr);
  EXPECT_EQ(h.streams.num_streams(), 0u);
}

TEST(MultiStream, MarkReadOfAReadOnlyViewKeepsTheVariable) {
  Harness h;
  h.Upload(h.home, 0);
  h.Drain(h.home);
  h.streams.MarkRead(h.home, Ro(0, kShape));
  EXPECT_TRUE(h.HasVariable(h.home, 0));
  EXPECT_EQ(h.streams.num_streams(), 1u);
}

// --- ForeignDrop (multi.rs:747-815) ---------------------------------------------------------

TEST(MultiStream, ForeignDropOfUnmaterializedTensorFallsBackToTheQueue) {
  Harness h;
  h.Upload(h.home, 0);
  h.Exp(h.home, Ro(0, kShape), 1);
  const std::vector<OperationIr> before = h.Composition(h.home);

  // t1's producer is pending: only the queue can order the drop.
  EXPECT_FALSE(h.streams.ForeignDrop(h.home, Rw(1, kShape), h.handles));
  EXPECT_EQ(h.NumPending(h.home), 2u);
  EXPECT_EQ(h.Composition(h.home), before);
  EXPECT_TRUE(h.streams.queue(h.home)->deferred_frees().empty());
  EXPECT_TRUE(h.HasVariable(h.home, 1));
}

TEST(MultiStream, ForeignDropOfReferencedTensorIsDeferredToTheNextDrain) {
  Harness h;
  h.Upload(h.home, 0);
  h.Exp(h.home, Ro(0, kShape), 1);
  const std::vector<OperationIr> before = h.Composition(h.home);

  EXPECT_TRUE(h.streams.ForeignDrop(h.home, Rw(0, kShape), h.handles));
  EXPECT_TRUE(h.handles.Has(0)) << "a pending op still reads t0: the free must wait";
  EXPECT_EQ(h.Composition(h.home), before) << "composition must not be cut";

  h.Drain(h.home);
  EXPECT_FALSE(h.handles.Has(0)) << "freed at the boundary";
  ExpectNear(h.Values(1), ExpOfIota());
}

TEST(MultiStream, ForeignDropOfUnreferencedTensorFreesImmediatelyAndErasesItsVariable) {
  Harness h;
  h.Upload(h.home, 0);
  h.Exp(h.home, Ro(0, kShape), 1);
  h.Drain(h.home);
  ASSERT_TRUE(h.HasVariable(h.home, 0)) << "a ReadOnly use leaves a stale entry";

  // Nothing pending references t0 any more: free on the spot.
  EXPECT_TRUE(h.streams.ForeignDrop(h.home, Rw(0, kShape), h.handles));
  EXPECT_FALSE(h.handles.Has(0));
  EXPECT_FALSE(h.HasVariable(h.home, 0)) << "the stale variables entry is cleaned up";
  EXPECT_NE(h.streams.queue(h.home), nullptr) << "t1 is still a variable of the stream";
}

TEST(MultiStream, ForeignDropOfTheLastVariableRemovesTheStream) {
  Harness h;
  h.Upload(h.home, 0);
  h.Exp(h.home, Ro(0, kShape), 1);
  h.Drain(h.home);

  EXPECT_TRUE(h.streams.ForeignDrop(h.home, Rw(0, kShape), h.handles));
  EXPECT_EQ(h.streams.num_streams(), 1u);
  EXPECT_TRUE(h.streams.ForeignDrop(h.home, Rw(1, kShape), h.handles));
  EXPECT_EQ(h.streams.queue(h.home), nullptr);
  EXPECT_EQ(h.streams.num_streams(), 0u);
  EXPECT_EQ(h.handles.size(), 0u);
}

TEST(MultiStream, ForeignDropForAStreamThatDoesNotExistJustFrees) {
  Harness h;
  h.handles.Register(5, MakeHandle(*h.backend, Iota(kShape)));
  EXPECT_TRUE(h.streams.ForeignDrop(h.home, Rw(5, kShape), h.handles));
  EXPECT_FALSE(h.handles.Has(5));
  EXPECT_EQ(h.streams.num_streams(), 0u);
}

// --- TagSharedView (multi.rs:153-192) -------------------------------------------------------

TEST(MultiStream, ShareOfUnmaterializedSourceDrainsItsStreamAndAliasesTheBuffer) {
  Harness h;
  h.Upload(h.home, 0);
  h.Exp(h.home, Ro(0, kShape), 1);

  h.streams.TagSharedView(h.home, 1, 11, h.handles);
  EXPECT_EQ(h.NumPending(h.home), 0u) << "t1's producer had to run";
  ASSERT_TRUE(h.handles.Has(11));
  EXPECT_EQ(h.BufferOf(11), h.BufferOf(1)) << "an alias, not a copy";
  ExpectNear(h.Values(11), ExpOfIota());
  EXPECT_EQ(h.NumPending(h.peer), 0u) << "sharing queues nothing on the receiving stream";
}

TEST(MultiStream, ShareOfMaterializedSourceLeavesItsStreamPending) {
  Harness h;
  h.Upload(h.home, 0);  // the handle exists although Init is still queued
  h.Exp(h.home, Ro(0, kShape), 1);

  h.streams.TagSharedView(h.home, 0, 10, h.handles);
  EXPECT_EQ(h.NumPending(h.home), 2u);
  EXPECT_EQ(h.BufferOf(10), h.BufferOf(0));
}

TEST(MultiStream, SecondShareOfTheSameSourceDoesNotDrainAgain) {
  Harness h;
  h.Upload(h.home, 0);
  h.Exp(h.home, Ro(0, kShape), 1);
  h.streams.TagSharedView(h.home, 1, 11, h.handles);  // drains
  ASSERT_EQ(h.NumPending(h.home), 0u);

  h.Exp(h.home, Ro(1, kShape), 2);
  h.streams.TagSharedView(h.home, 1, 12, h.handles);
  EXPECT_EQ(h.NumPending(h.home), 1u) << "t1 is materialized: the home segment stays pending";
  EXPECT_EQ(h.BufferOf(12), h.BufferOf(1));
}

// White-box: shared_sources alone suppresses the drain. A live tensor cannot be shared after
// its last use; consuming t1 on its home stream only makes "handle absent, source known"
// observable.
TEST(MultiStream, DrainedForSourceIsNotDrainedForAgainEvenWithoutAHandle) {
  Harness h;
  h.Upload(h.home, 0);
  h.Exp(h.home, Ro(0, kShape), 1);
  h.streams.TagSharedView(h.home, 1, 11, h.handles);  // drains; t1 becomes a shared source
  h.Exp(h.home, Rw(1, kShape), 2);
  h.Drain(h.home);
  ASSERT_FALSE(h.handles.Has(1));

  h.Exp(h.home, Ro(0, kShape), 3);
  h.streams.TagSharedView(h.home, 1, 12, h.handles);
  EXPECT_EQ(h.NumPending(h.home), 1u) << "t1 was drained for once already";
  EXPECT_FALSE(h.handles.Has(12)) << "nothing to alias";
}

// Same observation as above: once a Drop for the source is registered the set forgets it, so a
// later share of that id (handle gone) drains the home stream again.
TEST(MultiStream, DropOpOfASharedSourceForgetsIt) {
  Harness h;
  h.Upload(h.home, 0);
  h.Exp(h.home, Ro(0, kShape), 1);
  h.streams.TagSharedView(h.home, 1, 11, h.handles);
  h.streams.Register(h.home, ir::Drop(Rw(1, kShape)), h.handles);
  h.Drain(h.home);
  ASSERT_FALSE(h.handles.Has(1));
  EXPECT_TRUE(h.handles.Has(11)) << "each id frees only its own reference";
  ExpectNear(h.Values(11), ExpOfIota());

  h.Exp(h.home, Ro(0, kShape), 3);
  h.streams.TagSharedView(h.home, 1, 12, h.handles);
  EXPECT_EQ(h.NumPending(h.home), 0u) << "t1 is no longer a known shared source";
  EXPECT_FALSE(h.handles.Has(12));
}

TEST(MultiStream, ForeignDropOfASharedSourceForgetsIt) {
  Harness h;
  h.Upload(h.home, 0);
  h.Exp(h.home, Ro(0, kShape), 1);
  h.streams.TagSharedView(h.home, 1, 11, h.handles);
  EXPECT_TRUE(h.streams.ForeignDrop(h.home, Rw(1, kShape), h.handles));
  ASSERT_FALSE(h.handles.Has(1));

  h.Exp(h.home, Ro(0, kShape), 3);
  h.streams.TagSharedView(h.home, 1, 12, h.handles);
  EXPECT_EQ(h.NumPending(h.home), 0u) << "t1 is no longer a known shared source";
}

TEST(MultiStream, ChainedShareAliasesTheOwnersBufferWithoutDrainingThePeer) {
  Harness h;
  h.Upload(h.home, 0);
  h.Exp(h.home, Ro(0, kShape), 1);

  h.streams.TagSharedView(h.home, 1, 11, h.handles);  // owner -> peer: drains the owner
  EXPECT_EQ(h.NumPending(h.home), 0u);
  h.Exp(h.peer, Ro(11, kShape), 12);

  h.streams.TagSharedView(h.peer, 11, 21, h.handles);  // peer -> grandpeer
  EXPECT_EQ(h.NumPending(h.peer), 1u) << "t11 already has a handle: no drain of the peer";
  EXPECT_EQ(h.BufferOf(21), h.BufferOf(1));
  EXPECT_EQ(h.BufferOf(21), h.BufferOf(11));

  // Dropping the owner's and the peer's ids leaves the grandpeer's alias readable.
  h.streams.Register(h.home, ir::Drop(Rw(1, kShape)), h.handles);
  h.Drain(h.home);
  h.Exp(h.peer, Rw(11, kShape), 13);
  h.Drain(h.peer);
  EXPECT_FALSE(h.handles.Has(1));
  EXPECT_FALSE(h.handles.Has(11));
  h.Exp(h.grandpeer, Ro(21, kShape), 22);
  h.Drain(h.grandpeer);
  ExpectNear(h.Values(21), ExpOfIota());
  EXPECT_TRUE(h.handles.Has(22));
}

}  // namespace
}  // namespace ember
