// One plan store per device, shared by its streams: a plan found on one thread is a cache hit
// on another; a segment both explored before either stored its plan is stored twice (burn keeps
// no cross-stream lock on exploration), and later segments hit the first copy.
#include <gtest/gtest.h>

#include "engine/stream/stream_id.h"
#include "tests/stream/stream_test_util.h"

namespace ember {
namespace {

using stream_test::kShape;
using test::Ro;

struct Device : stream_test::StreamDevice {
  // Init(t); Exp(t -> t+1): the same relative segment for every t.
  void Queue(StreamId stream, TensorId t) {
    Upload(stream, t);
    Exp(stream, Ro(t, kShape), t + 1);
  }
};

TEST(SharedPlanStore, APlanFoundOnOneStreamIsAHitOnAnother) {
  Device d;
  const StreamId a = CurrentStreamId(), b = a + 1000;
  d.Queue(a, 10);
  d.streams.Drain(a, d.handles);
  EXPECT_EQ(d.streams.store().size(), 1u);
  d.Queue(b, 20);
  d.streams.Drain(b, d.handles);
  EXPECT_EQ(d.streams.store().size(), 1u) << "stream b explored a plan stream a had stored";
  EXPECT_EQ(d.streams.counters().explorations, 1u);
  EXPECT_EQ(d.streams.counters().cache_hits, 1u);
  EXPECT_TRUE(d.handles.Has(21));
}

TEST(SharedPlanStore, ASegmentExploredOnTwoStreamsAtOnceIsStoredTwiceAndTheFirstWinsAfter) {
  Device d;
  const StreamId a = CurrentStreamId(), b = a + 1000, c = a + 2000;
  d.Queue(a, 10);
  d.Queue(b, 20);  // both segments wait (open fuser) before either has a plan
  d.streams.Drain(a, d.handles);
  d.streams.Drain(b, d.handles);  // b's policy saw no plan when its ops arrived: it explores
  EXPECT_EQ(d.streams.store().size(), 2u);
  EXPECT_EQ(d.streams.store().Get(0).operations, d.streams.store().Get(1).operations);
  EXPECT_EQ(d.streams.counters().explorations, 2u);
  d.Queue(c, 30);
  d.streams.Drain(c, d.handles);
  EXPECT_EQ(d.streams.store().size(), 2u);
  EXPECT_EQ(d.streams.counters().cache_hits, 1u);
  EXPECT_TRUE(d.handles.Has(31));
}

}  // namespace
}  // namespace ember
