// OperationQueue (burn-fusion's stream/queue/base.rs and queue/execution.rs): what Add records, how
// an unfused execution drains a prefix and re-relativizes the rest from the new head, and the
// deferred-free bookkeeping. Also burn's queue/base.rs test of StreamId.
#include "engine/stream/operation_queue.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <thread>
#include <vector>

#include "engine/ir/builders.h"
#include "engine/runtime/cpu/cpu_backend.h"
#include "engine/stream/stream_id.h"
#include "tests/stream/stream_test_util.h"

namespace ember {
namespace {

using stream_test::Iota;
using stream_test::kShape;
using stream_test::MakeHandle;
using stream_test::ReadValues;
using test::Out;
using test::Ro;
using test::Rw;

// A queue with a CPU backend and a handle container to execute it against.
struct QueueHarness {
  std::unique_ptr<Backend> backend = cpu::MakeCpuBackend(1);
  HandleContainer handles;
  OperationQueue queue;

  // As the API's FromVector: the handle is registered first, then Init is queued.
  void Upload(TensorId id, const Shape& shape = kShape, float start = 0.0f) {
    handles.Register(id, MakeHandle(*backend, Iota(shape, start), shape));
    queue.Add(ir::Init(Out(id, shape)));
  }

  std::vector<float> Values(TensorId id) {
    const TensorHandle* handle = handles.Peek(id);
    if (handle == nullptr) {
      ADD_FAILURE() << "t" << id << " has no handle";
      return {};
    }
    return ReadValues(*backend, *handle);
  }

  bool HasVariable(TensorId id) const { return queue.variables().count(id) != 0; }
};

std::vector<size_t> Prefix(size_t n) {
  std::vector<size_t> ordering(n);
  for (size_t i = 0; i < n; ++i) ordering[i] = i;
  return ordering;
}

std::vector<float> Map(const std::vector<float>& values, float (*f)(float)) {
  std::vector<float> out;
  for (float v : values) out.push_back(f(v));
  return out;
}

// Kernels may round transcendental functions differently from <cmath>.
void ExpectNear(const std::vector<float>& actual, const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], 1e-5f * std::abs(expected[i])) << "element " << i;
  }
}

// --- Add --------------------------------------------------------------------------------------

TEST(OperationQueue, AddRecordsLatestStatusesAndConvertsEveryOpInOneFrame) {
  const std::vector<OperationIr> ops = {
      ir::Init(Out(10, kShape)),
      ir::Unary(OpKind::kExp, Ro(10, kShape), Out(11, kShape)),
      ir::Binary(OpKind::kAdd, Rw(11, kShape), Rw(10, kShape), Out(12, kShape)),
  };
  OperationQueue queue;
  for (const OperationIr& op : ops) queue.Add(op);

  ASSERT_EQ(queue.size(), 3u);
  EXPECT_EQ(queue.global(), ops);  // global ops are kept exactly as submitted

  // variables: the latest status seen per tensor id.
  EXPECT_EQ(queue.variables().size(), 3u);
  EXPECT_EQ(queue.variables().at(10), TensorStatus::kReadWrite);
  EXPECT_EQ(queue.variables().at(11), TensorStatus::kReadWrite);
  EXPECT_EQ(queue.variables().at(12), TensorStatus::kNotInit);

  // One frame for the whole queue: t10 is relative id 0 in every op that uses it.
  const std::vector<OperationIr>& rel = queue.relative();
  ASSERT_EQ(rel.size(), 3u);
  EXPECT_EQ(rel[0].outputs[0], Out(0, {1, 2}));
  EXPECT_EQ(rel[1].inputs[0], Ro(0, {1, 2}));
  EXPECT_EQ(rel[1].outputs[0], Out(1, {1, 2}));
  EXPECT_EQ(rel[2].inputs[0], Rw(1, {1, 2}));
  EXPECT_EQ(rel[2].inputs[1], Rw(0, {1, 2}));
  EXPECT_EQ(rel[2].outputs[0], Out(2, {1, 2}));

  // The same as one converter run over the sequence.
  OperationConverter converter;
  for (size_t i = 0; i < ops.size(); ++i) EXPECT_EQ(rel[i], converter.ToRelative(ops[i]));
  EXPECT_EQ(queue.shapes_assigned(), (std::vector<size_t>{3, 3, 3}));
}

TEST(OperationQueue, ShapesAssignedCountsTheSeededShapeId) {
  OperationQueue queue;
  queue.Add(ir::Init(Out(1, {})));      // rank 0: no dim, only the seeded id 0
  queue.Add(ir::Init(Out(2, {1, 1})));  // 1 is always shape id 0
  queue.Add(ir::Init(Out(3, {5})));
  queue.Add(ir::Init(Out(4, {5, 7})));
  EXPECT_EQ(queue.shapes_assigned(), (std::vector<size_t>{1, 1, 2, 3}));
  EXPECT_EQ(queue.converter().NumRelativeShapes(), 3u);
  EXPECT_EQ(queue.relative()[3].outputs[0].shape, (Shape{1, 2}));
}

TEST(OperationQueue, ReferencesTensorSeesInputsAndOutputsOfPendingOpsOnly) {
  QueueHarness h;
  h.Upload(1);
  h.queue.Add(ir::Unary(OpKind::kExp, Ro(1, kShape), Out(2, kShape)));

  EXPECT_TRUE(h.queue.ReferencesTensor(1));
  EXPECT_TRUE(h.queue.ReferencesTensor(2));
  EXPECT_FALSE(h.queue.ReferencesTensor(3));

  h.queue.ExecuteUnfused(Prefix(2), *h.backend, h.handles);
  EXPECT_FALSE(h.queue.ReferencesTensor(1));
  EXPECT_FALSE(h.queue.ReferencesTensor(2));
  // variables keep ReadOnly and NotInit entries after their ops ran: they cannot answer this.
  EXPECT_TRUE(h.HasVariable(1));
  EXPECT_TRUE(h.HasVariable(2));
}

// --- ExecuteUnfused ---------------------------------------------------------------------------

// z[7], a and b are uploads; c = a * b (a's last use, b stays alive), d = 2c. The prefix of five
// ops is executed; e = d + 3 and f = c + e stay queued.
struct PrefixProgram {
  static constexpr TensorId z = 1, a = 2, b = 3, c = 4, d = 5, e = 6, f = 7;
  static constexpr size_t kPrefix = 5;

  QueueHarness h;
  std::vector<OperationIr> remaining = {
      ir::Scalar(OpKind::kAddScalar, Rw(d, kShape), ScalarIr::Float(3.0), Out(e, kShape)),
      ir::Binary(OpKind::kAdd, Rw(c, kShape), Rw(e, kShape), Out(f, kShape)),
  };

  PrefixProgram() {
    h.Upload(z, {7});
    h.Upload(a);
    h.Upload(b, kShape, 10.0f);
    h.queue.Add(ir::Binary(OpKind::kMul, Rw(a, kShape), Ro(b, kShape), Out(c, kShape)));
    h.queue.Add(
        ir::Scalar(OpKind::kMulScalar, Ro(c, kShape), ScalarIr::Float(2.0), Out(d, kShape)));
    for (const OperationIr& op : remaining) h.queue.Add(op);
  }
};

TEST(OperationQueue, ExecuteUnfusedOfAPrefixFreesLastUsesAndKeepsReadOnlyInputs) {
  PrefixProgram p;
  QueueHarness& h = p.h;
  h.queue.ExecuteUnfused(Prefix(PrefixProgram::kPrefix), *h.backend, h.handles);

  EXPECT_EQ(h.queue.global(), p.remaining);
  EXPECT_FALSE(h.handles.Has(p.a)) << "a was read ReadWrite: its last use";
  EXPECT_FALSE(h.HasVariable(p.a));
  EXPECT_TRUE(h.handles.Has(p.b)) << "b was read ReadOnly";
  EXPECT_EQ(h.queue.variables().at(p.b), TensorStatus::kReadOnly);
  EXPECT_TRUE(h.handles.Has(p.z));
  EXPECT_TRUE(h.handles.Has(p.c));
  EXPECT_TRUE(h.handles.Has(p.d));
  EXPECT_FALSE(h.handles.Has(p.e));

  const std::vector<float> a = Iota(kShape);
  const std::vector<float> b = Iota(kShape, 10.0f);
  std::vector<float> c, d;
  for (size_t i = 0; i < a.size(); ++i) {
    c.push_back(a[i] * b[i]);
    d.push_back(2.0f * c.back());
  }
  EXPECT_EQ(h.Values(p.c), c);
  EXPECT_EQ(h.Values(p.d), d);

  // The rest runs from the new head and consumes its last uses.
  h.queue.ExecuteUnfused(Prefix(2), *h.backend, h.handles);
  EXPECT_TRUE(h.queue.empty());
  EXPECT_TRUE(h.queue.relative().empty());
  EXPECT_TRUE(h.queue.shapes_assigned().empty());
  EXPECT_FALSE(h.handles.Has(p.c));
  EXPECT_FALSE(h.handles.Has(p.d));
  EXPECT_FALSE(h.handles.Has(p.e));
  std::vector<float> f;
  for (size_t i = 0; i < c.size(); ++i) f.push_back(c[i] + (d[i] + 3.0f));
  EXPECT_EQ(h.Values(p.f), f);
}

TEST(OperationQueue, ExecuteUnfusedRelativizesTheRemainingOpsFromTheNewHead) {
  PrefixProgram p;
  QueueHarness& h = p.h;

  // Before: in the frame of the whole queue. z, a, b, c, d come first; [7] took shape id 1.
  const OperationIr before = h.queue.relative()[PrefixProgram::kPrefix];
  EXPECT_EQ(before.inputs[0], Rw(4, {2, 3}));
  EXPECT_EQ(before.scalars[0], ScalarIr::UInt(1));

  h.queue.ExecuteUnfused(Prefix(PrefixProgram::kPrefix), *h.backend, h.handles);

  // After: tensor ids, scalar placeholders and shape ids restart at the head.
  const std::vector<OperationIr>& rel = h.queue.relative();
  ASSERT_EQ(rel.size(), 2u);
  EXPECT_EQ(rel[0].inputs[0], Rw(0, {1, 2}));    // d
  EXPECT_EQ(rel[0].outputs[0], Out(1, {1, 2}));  // e
  EXPECT_EQ(rel[0].scalars[0], ScalarIr::UInt(0));
  EXPECT_EQ(rel[1].inputs[0].id, 2u);  // c
  EXPECT_EQ(rel[1].inputs[1].id, 1u);  // e
  EXPECT_EQ(rel[1].outputs[0].id, 3u);
  EXPECT_EQ(h.queue.converter().scalars(), (std::vector<ScalarIr>{ScalarIr::Float(3.0)}));
  EXPECT_EQ(h.queue.converter().shapes_relative2global(), (std::vector<int64_t>{1, 2, 3}));

  // Exactly as if the remaining ops had been submitted to an empty queue.
  OperationQueue fresh;
  for (const OperationIr& op : p.remaining) fresh.Add(op);
  EXPECT_EQ(h.queue.relative(), fresh.relative());
  EXPECT_EQ(h.queue.shapes_assigned(), fresh.shapes_assigned());
}

TEST(OperationQueue, ExecuteUnfusedAcceptsAnyPermutationOfThePrefix) {
  QueueHarness h;
  h.Upload(1);
  h.queue.Add(ir::Unary(OpKind::kExp, Ro(1, kShape), Out(2, kShape)));
  h.queue.Add(ir::Unary(OpKind::kNeg, Ro(1, kShape), Out(3, kShape)));
  h.queue.Add(ir::Unary(OpKind::kAbs, Rw(1, kShape), Out(4, kShape)));

  const std::vector<size_t> ordering = {0, 2, 1};
  h.queue.ExecuteUnfused(ordering, *h.backend, h.handles);

  ASSERT_EQ(h.queue.size(), 1u);
  EXPECT_EQ(h.queue.global()[0].kind, OpKind::kAbs);
  ExpectNear(h.Values(2), Map(Iota(kShape), [](float v) { return std::exp(v); }));
  EXPECT_EQ(h.Values(3), Map(Iota(kShape), [](float v) { return -v; }));
}

TEST(OperationQueueDeathTest, ExecuteUnfusedRejectsAnOrderingThatIsNotAPrefix) {
  QueueHarness h;
  h.Upload(1);
  h.queue.Add(ir::Unary(OpKind::kExp, Ro(1, kShape), Out(2, kShape)));
  const std::vector<size_t> ordering = {1};
  // Matches the CHECK's condition: EMBER_CHECK currently drops its formatted message (the
  // "" in check.h becomes the format string once __VA_OPT__ adds its comma).
  EXPECT_DEATH(h.queue.ExecuteUnfused(ordering, *h.backend, h.handles),
               "CHECK failed.*position < ordering.size");
}

// --- deferred frees ---------------------------------------------------------------------------

TEST(OperationQueue, FlushDeferredFreesUnreferencedTensorsAndKeepsReferencedOnes) {
  QueueHarness h;
  h.Upload(9);
  h.queue.ExecuteUnfused(Prefix(1), *h.backend, h.handles);  // t9 materialized, nothing pending
  h.Upload(1);
  h.queue.Add(ir::Unary(OpKind::kExp, Ro(1, kShape), Out(2, kShape)));

  h.queue.DeferFree(Rw(1, kShape));
  h.queue.DeferFree(Rw(9, kShape));
  h.queue.FlushDeferred(h.handles);

  EXPECT_FALSE(h.handles.Has(9)) << "no pending op references t9";
  EXPECT_FALSE(h.HasVariable(9));
  EXPECT_TRUE(h.handles.Has(1)) << "the queued Exp still reads t1";
  EXPECT_TRUE(h.HasVariable(1));
  EXPECT_EQ(h.queue.deferred_frees(), (std::vector<TensorIr>{Rw(1, kShape)}));
  EXPECT_EQ(h.queue.size(), 2u) << "a flush never executes anything";

  // The execution that runs the last reference is the boundary that releases it.
  h.queue.ExecuteUnfused(Prefix(2), *h.backend, h.handles);
  EXPECT_FALSE(h.handles.Has(1));
  EXPECT_FALSE(h.HasVariable(1));
  EXPECT_TRUE(h.queue.deferred_frees().empty());
  EXPECT_TRUE(h.handles.Has(2));
}

TEST(OperationQueue, PartialExecutionKeepsDeferredFreesTheRemainingOpsStillReference) {
  QueueHarness h;
  h.Upload(1);
  h.queue.Add(ir::Unary(OpKind::kExp, Ro(1, kShape), Out(2, kShape)));
  h.queue.Add(ir::Unary(OpKind::kNeg, Ro(1, kShape), Out(3, kShape)));
  h.queue.DeferFree(Rw(1, kShape));

  h.queue.ExecuteUnfused(Prefix(2), *h.backend, h.handles);
  EXPECT_TRUE(h.handles.Has(1)) << "the queued Neg still reads t1";
  EXPECT_EQ(h.queue.deferred_frees().size(), 1u);

  h.queue.ExecuteUnfused(Prefix(1), *h.backend, h.handles);
  EXPECT_FALSE(h.handles.Has(1));
  EXPECT_TRUE(h.queue.deferred_frees().empty());
  EXPECT_EQ(h.Values(3), Map(Iota(kShape), [](float v) { return -v; }));
}

// --- StreamId (burn's queue/base.rs: stream_id_from_different_threads) ---------------------

TEST(StreamId, IsStableWithinAThreadAndDistinctAcrossThreads) {
  const StreamId current = CurrentStreamId();
  StreamId stream_1 = 0, stream_11 = 0, stream_2 = 0;
  std::thread thread1([&] {
    stream_1 = CurrentStreamId();
    stream_11 = CurrentStreamId();
  });
  std::thread thread2([&] { stream_2 = CurrentStreamId(); });
  thread1.join();
  thread2.join();

  EXPECT_NE(current, stream_1) << "should be different from thread 1";
  EXPECT_NE(current, stream_2) << "should be different from thread 2";
  EXPECT_NE(stream_1, stream_2) << "should be different from different threads";
  EXPECT_EQ(stream_1, stream_11) << "should be the same, since same thread";
  EXPECT_EQ(current, CurrentStreamId());
}

}  // namespace
}  // namespace ember
