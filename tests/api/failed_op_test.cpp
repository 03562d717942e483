// A queued op that fails while it runs (here: an allocation the system refuses) is an
// ember::Error at the sync that ran it, naming the op; the ops queued beside it still run, and
// the stream stays usable.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "tests/api/api_test_util.h"

namespace ember {
namespace {

using ::testing::HasSubstr;
using testing::OnFreshStream;

bool OvercommitRefusesHugeAllocations() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return false;  // sanitizer allocators abort on such requests instead of throwing
#else
  std::ifstream f("/proc/sys/vm/overcommit_memory");
  int mode = -1;
  f >> mode;
  return mode == 0 || mode == 2;
#endif
}

TEST(FailedOp, AllocationFailureIsAnErrorAndTheStreamStaysUsable) {
  if (!OvercommitRefusesHugeAllocations()) GTEST_SKIP() << "cannot fail an allocation safely";
  OnFreshStream([] {
    Tensor ok = Tensor::Full({2}, 1.0, DType::kF32) + 1.0;
    Tensor huge = Tensor::Zeros({int64_t{1} << 20, int64_t{1} << 20}, DType::kF32);  // 4 TiB
    try {
      Sync();
      ADD_FAILURE() << "expected ember::Error";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("BaseFloat::Zeros failed"));
    }
    EXPECT_EQ(ok.ToVector<float>(), (std::vector<float>{2, 2}));
    EXPECT_THROW((void)huge.Sum().ToVector<float>(), Error);
    EXPECT_EQ((ok * 2.0).ToVector<float>(), (std::vector<float>{4, 4}));
  });
}

}  // namespace
}  // namespace ember
