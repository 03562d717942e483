// A stored plan whose fused code fails: the call reports ember::Error, the queue stays
// consistent, and from then on the plan runs its ops unfused (and succeeds).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include <ember/error.h>

#include "engine/ir/builders.h"
#include "engine/runtime/cpu/cpu_backend.h"
#include "engine/stream/multi_stream.h"
#include "engine/stream/stream_id.h"
#include "tests/stream/stream_test_util.h"

namespace ember {
namespace {

using stream_test::kShape;
using stream_test::ReadValues;
using test::Ro;

class FailingOptimization final : public Optimization {
 public:
  void Execute(Context&, OrderedExecution&) override {
    throw std::runtime_error("the kernel did not build");
  }
  size_t len() const override { return 2; }
  std::string_view name() const override { return "Failing"; }
  OptimizationState ToState() const override { return {"Failing", {}}; }
};

// Takes any two ops, then is ready with score 2 and closed.
class TwoOpFuser final : public OperationFuser {
 public:
  void Fuse(const OperationIr&) override { ++len_; }
  std::shared_ptr<Optimization> Finish() override {
    return std::make_shared<FailingOptimization>();
  }
  void Reset() override { len_ = 0; }
  FuserStatus status() const override {
    return len_ < 2 ? FuserStatus::kOpen : FuserStatus::kClosed;
  }
  FuserProperties properties() const override {
    return len_ == 2 ? FuserProperties{2, true} : FuserProperties{};
  }
  size_t len() const override { return len_; }
  std::unique_ptr<OperationFuser> Clone() const override {
    return std::make_unique<TwoOpFuser>(*this);
  }

 private:
  size_t len_ = 0;
};

TEST(FailedPlan, FusedFailureIsAnErrorAndThePlanRunsUnfusedAfterwards) {
  stream_test::StreamDevice device([] {
    std::vector<std::unique_ptr<OperationFuser>> fusers;
    fusers.push_back(std::make_unique<TwoOpFuser>());
    return fusers;
  });
  Backend& backend = *device.backend;
  HandleContainer& handles = device.handles;
  const MultiStream& streams = device.streams;
  const StreamId home = CurrentStreamId();
  // Segment: Init(t) ; Exp(t -> u). Ids differ per round, the relative form does not.
  auto round = [&](TensorId t, TensorId u) {
    device.Upload(home, t);
    device.Exp(home, Ro(t, kShape), u);
  };
  try {
    round(10, 11);
    ADD_FAILURE() << "expected ember::Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("Failing failed: the kernel did not build"));
  }
  ASSERT_EQ(streams.store().size(), 1u);
  EXPECT_EQ(streams.store().Get(0).optimization.strategy, ExecutionStrategy::Operations({0, 1}));
  EXPECT_TRUE(streams.queue(home) == nullptr || streams.queue(home)->empty());
  EXPECT_FALSE(handles.Has(11)) << "the failed plan's output was never computed";

  round(20, 21);  // the same segment: a cache hit on the demoted plan, which now succeeds
  EXPECT_EQ(streams.store().size(), 1u);
  ASSERT_TRUE(handles.Has(21));
  const std::vector<float> values = ReadValues(backend, *handles.Peek(21));
  EXPECT_FLOAT_EQ(values[1], std::exp(1.0f));
}

}  // namespace
}  // namespace ember
