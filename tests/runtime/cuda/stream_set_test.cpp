// StreamSet (engine/runtime/cuda/backend/stream_set.h): one CUDA stream per ember stream, and
// the streams of forgotten ember streams serve new ones instead of piling up.
#include <gtest/gtest.h>

#include "engine/runtime/cuda/backend/stream_set.h"
#include "tests/runtime/cuda/cuda_test_util.h"

namespace ember::cuda {
namespace {

class StreamSetTest : public testing::CudaTest {};

TEST_F(StreamSetTest, EachEmberStreamHasItsOwnCudaStream) {
  StreamSet set(device_);
  CudaStream& one = set.Get(1);
  CudaStream& two = set.Get(2);
  EXPECT_NE(one.get(), two.get());
  EXPECT_EQ(&set.Get(1), &one);  // the same stream for the same ember stream, every time
  EXPECT_EQ(set.streams(), 2u);
  EXPECT_EQ(set.in_use(), 2u);
  set.SynchronizeAll();
}

TEST_F(StreamSetTest, AReleasedStreamServesTheNextNewEmberStream) {
  StreamSet set(device_);
  const CUstream first = set.Get(7).get();
  set.Get(8);
  set.Release(7);
  set.Release(7);  // twice is harmless
  EXPECT_EQ(set.in_use(), 1u);
  EXPECT_EQ(set.Get(9).get(), first);
  EXPECT_EQ(set.streams(), 2u);  // no new CUDA stream
  // A thread that comes and goes many times holds one stream.
  for (uint64_t id = 100; id < 150; ++id) {
    set.Get(id);
    set.Release(id);
  }
  EXPECT_EQ(set.streams(), 3u);
  set.Release(99);  // an ember stream that never got one
  EXPECT_EQ(set.in_use(), 2u);
}

}  // namespace
}  // namespace ember::cuda
