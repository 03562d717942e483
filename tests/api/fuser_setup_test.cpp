// The API tests run with one test fuser that keeps up to 64 ops of a block queued and never
// fuses (the shape of a real fuser that is still growing), so tests can look at what a stream
// queued before it runs; the real fusers come with the fusion issue. Installed before any
// device server exists (static initialization of this test binary).
#include <gtest/gtest.h>

#include "engine/core/check.h"
#include "tests/api/api_test_util.h"

namespace ember {
namespace {

class OpenFuser final : public OperationFuser {
 public:
  static constexpr size_t kLimit = 64;

  void Fuse(const OperationIr&) override { ++len_; }
  std::shared_ptr<Optimization> Finish() override {
    EMBER_CHECK(false, "OpenFuser is never ready");
    return nullptr;
  }
  void Reset() override { len_ = 0; }
  FuserStatus status() const override {
    return len_ < kLimit ? FuserStatus::kOpen : FuserStatus::kClosed;
  }
  FuserProperties properties() const override { return {}; }
  size_t len() const override { return len_; }
  std::unique_ptr<OperationFuser> Clone() const override {
    return std::make_unique<OpenFuser>(*this);
  }

 private:
  size_t len_ = 0;
};

const bool kInstalled = [] {
  internal::SetFuserFactoryForTesting([] {
    std::vector<std::unique_ptr<OperationFuser>> fusers;
    fusers.push_back(std::make_unique<OpenFuser>());
    return fusers;
  });
  return true;
}();

TEST(FuserSetup, OpsStayQueuedWhileTheFuserIsOpenAndRunAtSync) {
  ASSERT_TRUE(kInstalled);
  testing::OnFreshStream([] {
    Tensor a = Tensor::Full({4}, 2.0, DType::kF32);
    Tensor b = a * 3.0;
    EXPECT_EQ(testing::CurrentQueue().global.size(), 2u);
    Sync();
    EXPECT_TRUE(testing::CurrentQueue().global.empty());
    EXPECT_EQ(b.ToVector<float>(), (std::vector<float>{6, 6, 6, 6}));
  });
}

}  // namespace
}  // namespace ember
