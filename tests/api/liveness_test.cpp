// Liveness as burn defines it: ReadWrite for the only reference, ReadOnly otherwise, Drop when
// the last reference goes without a last use; and the queue holding global and relative forms.
// An operand stays alive until its op is queued, even when another thread drops it meanwhile;
// reading a temporary consumes it.
#include <gtest/gtest.h>

#include <thread>

#include "engine/ir/format.h"
#include "tests/api/api_test_util.h"

namespace ember {
namespace {

using testing::CurrentQueue;
using testing::OnFreshStream;

std::vector<TensorStatus> InputStatuses(const OperationIr& op) {
  std::vector<TensorStatus> out;
  for (const TensorIr& t : op.inputs) out.push_back(t.status);
  return out;
}

TEST(Liveness, SeedExpressionQueuesNamedInputsReadOnlyAndTemporariesReadWrite) {
  OnFreshStream([] {
    Tensor a = Tensor::RandomUniform({64, 64}, DType::kF32);
    Tensor b = Tensor::RandomUniform({64, 64}, DType::kF32);
    Tensor c = Tensor::RandomUniform({64, 64}, DType::kF32);
    // C++ leaves the order of a binary operator's operands unspecified (GCC evaluates the
    // right one first), so the sub-expressions are sequenced explicitly to queue them in the
    // seed's order; std::move keeps them temporaries (ReadWrite), as in the seed.
    Tensor ab = a * b;
    Tensor c2 = c * 2.0;
    Tensor y = (std::move(ab) + std::move(c2)).Exp();
    auto q = CurrentQueue();
    ASSERT_EQ(q.global.size(), 7u);
    EXPECT_EQ(OpName(q.global[3]), "NumericFloat::Mul");
    EXPECT_EQ(OpName(q.global[4]), "NumericFloat::MulScalar");
    EXPECT_EQ(OpName(q.global[5]), "NumericFloat::Add");
    EXPECT_EQ(OpName(q.global[6]), "Float::Exp");
    using S = TensorStatus;
    EXPECT_EQ(InputStatuses(q.global[3]), (std::vector<S>{S::kReadOnly, S::kReadOnly}));
    EXPECT_EQ(InputStatuses(q.global[4]), (std::vector<S>{S::kReadOnly}));
    EXPECT_EQ(InputStatuses(q.global[5]), (std::vector<S>{S::kReadWrite, S::kReadWrite}));
    EXPECT_EQ(InputStatuses(q.global[6]), (std::vector<S>{S::kReadWrite}));
    EXPECT_EQ(q.global[6].outputs[0].status, S::kNotInit);
    // The relative form: ids by first appearance across the queue, 64 -> shape id 1.
    ASSERT_EQ(q.relative.size(), 7u);
    EXPECT_EQ(q.relative[3].inputs[0].id, 0u);
    EXPECT_EQ(q.relative[3].inputs[1].id, 1u);
    EXPECT_EQ(q.relative[3].outputs[0].id, 3u);
    EXPECT_EQ(q.relative[3].inputs[0].shape, (Shape{1, 1}));
    EXPECT_EQ(q.relative[4].scalars[0], ScalarIr::UInt(0));
    EXPECT_EQ(q.global[4].scalars[0], ScalarIr::Float(2.0));
    // Reading back runs the queue and gives e^(a*b + 2c).
    std::vector<float> av = a.ToVector<float>(), bv = b.ToVector<float>(), cv = c.ToVector<float>(),
                       yv = y.ToVector<float>();
    for (size_t i = 0; i < yv.size(); i += 97) {
      EXPECT_NEAR(yv[i], std::exp(av[i] * bv[i] + cv[i] * 2.0f), 1e-4f * yv[i]);
    }
  });
}

TEST(Liveness, MovedOnlyReferenceIsReadWriteAndQueuesNoDrop) {
  OnFreshStream([] {
    Tensor a = Tensor::Ones({4}, DType::kF32);
    Tensor b = std::move(a).Exp();
    auto q = CurrentQueue();
    ASSERT_EQ(q.global.size(), 2u);
    EXPECT_EQ(q.global[1].inputs[0].status, TensorStatus::kReadWrite);
    EXPECT_FALSE(a.defined());  // NOLINT(bugprone-use-after-move): moved-from is empty
    EXPECT_FLOAT_EQ(b.ToVector<float>()[0], std::exp(1.0f));
  });
}

TEST(Liveness, CopiedReferenceIsReadOnlyAndLastReleaseQueuesDrop) {
  OnFreshStream([] {
    Tensor a = Tensor::Ones({4}, DType::kF32);
    const TensorId a_id = a.node()->id;
    Tensor copy = a;
    Tensor b = std::move(copy).Exp();  // `a` still refers to it: not the last use
    auto q = CurrentQueue();
    ASSERT_EQ(q.global.size(), 2u);
    EXPECT_EQ(q.global[1].inputs[0].status, TensorStatus::kReadOnly);
    a = Tensor();  // the last reference goes: a Drop is queued
    q = CurrentQueue();
    ASSERT_EQ(q.global.size(), 3u);
    EXPECT_EQ(q.global[2].kind, OpKind::kDrop);
    EXPECT_EQ(q.global[2].inputs[0].id, a_id);
    EXPECT_EQ(q.global[2].inputs[0].status, TensorStatus::kReadWrite);
    EXPECT_TRUE(q.global[2].outputs.empty());
  });
}

TEST(Liveness, SameTensorTwiceIsReadOnlyBothTimes) {
  OnFreshStream([] {
    Tensor x = Tensor::Full({3}, 3.0, DType::kF32);
    Tensor y = x * x;
    auto q = CurrentQueue();
    ASSERT_EQ(q.global.size(), 2u);
    EXPECT_EQ(InputStatuses(q.global[1]),
              (std::vector<TensorStatus>{TensorStatus::kReadOnly, TensorStatus::kReadOnly}));
    EXPECT_EQ(q.relative[1].inputs[0].id, q.relative[1].inputs[1].id);
    EXPECT_EQ(y.ToVector<float>(), (std::vector<float>{9, 9, 9}));
  });
}

TEST(Liveness, SyncRunsTheQueueAndFreesLastUses) {
  OnFreshStream([] {
    auto server = ServerFor(Device::Cpu());
    Tensor y;
    {
      Tensor a = Tensor::FromVector<float>({1, 2, 3}, {3});
      y = (a + 1.0).Exp();
    }                                             // `a` goes: Drop queued
    EXPECT_EQ(CurrentQueue().global.size(), 4u);  // Init, AddScalar, Exp, Drop
    Sync();
    EXPECT_TRUE(CurrentQueue().global.empty());
    EXPECT_NEAR(y.ToVector<float>()[2], std::exp(4.0f), 1e-3f);
  });
}

TEST(Liveness, RelativeFormIsRebuiltFromTheNewHeadAfterExecution) {
  OnFreshStream([] {
    Tensor a = Tensor::FromVector<float>({1, 2}, {2});
    Sync();
    Tensor b = a * 3.0;
    auto q = CurrentQueue();
    ASSERT_EQ(q.relative.size(), 1u);
    EXPECT_EQ(q.relative[0].inputs[0].id, 0u);  // a is relative 0 in the new frame
    EXPECT_EQ(q.relative[0].scalars[0], ScalarIr::UInt(0));
    EXPECT_EQ(b.ToVector<float>(), (std::vector<float>{3, 6}));
  });
}

TEST(Operands, ReadOnlyOperandDroppedConcurrentlyIsFreedAfterItsOp) {
  // Thread A consumes x while thread B drops its own reference at the same moment. Whatever
  // the interleaving, x must be freed after the Exp that reads it, never before.
  for (int round = 0; round < 200; ++round) {
    OnFreshStream([] {
      Tensor x = Tensor::Full({64}, 1.0, DType::kF32);
      Sync();
      Tensor copy = x;
      std::thread other([c = std::move(copy)]() mutable { c = Tensor(); });
      Tensor y = std::move(x).Exp();
      other.join();
      EXPECT_FLOAT_EQ(y.ToVector<float>()[63], std::exp(1.0f));
    });
  }
}

TEST(ConsumingRead, TemporaryIsFreedByItsReadAndQueuesNoDrop) {
  OnFreshStream([] {
    Tensor a = Tensor::Full({3}, 2.0, DType::kF32);
    EXPECT_EQ((a * 3.0).ToVector<float>(), (std::vector<float>{6, 6, 6}));
    EXPECT_TRUE(CurrentQueue().global.empty()) << "the read consumed it: no Drop to run";
    Tensor kept = a * 4.0;
    EXPECT_EQ(kept.ToVector<float>(), (std::vector<float>{8, 8, 8}));
    EXPECT_EQ(std::move(kept).ToVector<float>(), (std::vector<float>{8, 8, 8}));
  });
}

}  // namespace
}  // namespace ember
