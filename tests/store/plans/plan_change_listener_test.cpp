// PlanChangeListener (store/plan_change_listener.h) over a scripted feed: which changes it keeps,
// how a first op's pending changes are taken and given back, and a lost feed that comes back
// and makes every first op be read again.
#include "store/plan_change_listener.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

namespace ember {
namespace {

using std::chrono::milliseconds;

// Hands out what the test pushes: a batch of changes, or a lost connection.
class ScriptedFeed final : public PlanChangeFeed {
 public:
  struct Step {
    std::vector<PlanChange> changes;
    bool lost = false;
  };
  void Push(Step step) {
    std::lock_guard lock(mutex_);
    steps_.push_back(std::move(step));
    cv_.notify_all();
  }
  void SetReachable(bool reachable) {
    std::lock_guard lock(mutex_);
    reachable_ = reachable;
  }
  int reconnects() {
    std::lock_guard lock(mutex_);
    return reconnects_;
  }

  Status Wait(milliseconds timeout, std::vector<PlanChange>* out) override {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, timeout, [&] { return !steps_.empty() || interrupted_; });
    interrupted_ = false;
    if (steps_.empty()) return Status::Ok();
    Step step = std::move(steps_.front());
    steps_.pop_front();
    if (step.lost) return Status::Unavailable("scripted loss");
    out->insert(out->end(), step.changes.begin(), step.changes.end());
    return Status::Ok();
  }
  Status Reconnect() override {
    std::lock_guard lock(mutex_);
    ++reconnects_;
    return reachable_ ? Status::Ok() : Status::Unavailable("scripted: still down");
  }
  void Interrupt() override {
    std::lock_guard lock(mutex_);
    interrupted_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Step> steps_;
  bool interrupted_ = false;
  bool reachable_ = true;
  int reconnects_ = 0;
};

PlanChange Plan(uint64_t first_op, uint64_t key, EnvironmentRowId env = 1, bool own = false) {
  return {.kind = PlanChange::Kind::kPlan,
          .environment = env,
          .first_op_hash = first_op,
          .plan_key = {.low = key, .high = 0},
          .from_this_process = own};
}

// Waits (bounded) until `done` holds.
template <typename F>
bool Eventually(F done) {
  for (int i = 0; i < 500; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return done();
}

class PlanChangeListenerTest : public testing::Test {
 protected:
  PlanChangeListenerTest() {
    auto feed = std::make_unique<ScriptedFeed>();
    feed_ = feed.get();
    listener_ = std::make_unique<PlanChangeListener>(std::move(feed), /*environment=*/1, "test");
  }
  ScriptedFeed* feed_;
  std::unique_ptr<PlanChangeListener> listener_;
};

TEST_F(PlanChangeListenerTest, KeepsOthersChangesToWatchedFirstOpsOfItsEnvironmentOnly) {
  const uint64_t epoch = listener_->Watch(10);
  const uint64_t before = listener_->generation();
  feed_->Push({.changes = {Plan(10, 1), Plan(10, 1), Plan(11, 2), Plan(10, 3, /*env=*/2),
                           Plan(10, 4, 1, /*own=*/true)}});
  ASSERT_TRUE(Eventually([&] { return listener_->changes_heard() == 3; }));
  EXPECT_NE(listener_->generation(), before);
  PlanChangeListener::Pending pending = listener_->Take(10, epoch);
  EXPECT_FALSE(pending.resync);
  EXPECT_FALSE(pending.triggers);
  ASSERT_EQ(pending.plans.size(), 1u);  // the repeat folded, the others not watched or own
  EXPECT_EQ(pending.plans[0].low, 1u);
  EXPECT_TRUE(listener_->Take(10, pending.epoch).plans.empty());
  EXPECT_TRUE(listener_->Take(11, epoch).plans.empty());
}

TEST_F(PlanChangeListenerTest, TriggersAreFlaggedAndARequeuedTakeComesBack) {
  const uint64_t epoch = listener_->Watch(10);
  PlanChange trigger = Plan(10, 1);
  trigger.kind = PlanChange::Kind::kTrigger;
  feed_->Push({.changes = {trigger, Plan(10, 2)}});
  ASSERT_TRUE(Eventually([&] { return listener_->changes_heard() == 2; }));
  PlanChangeListener::Pending pending = listener_->Take(10, epoch);
  EXPECT_TRUE(pending.triggers);
  const uint64_t before = listener_->generation();
  listener_->Requeue(10, pending);
  EXPECT_NE(listener_->generation(), before);  // the store asks again
  const PlanChangeListener::Pending again = listener_->Take(10, epoch);
  EXPECT_TRUE(again.triggers);
  EXPECT_EQ(again.plans, pending.plans);
}

TEST_F(PlanChangeListenerTest, ALostFeedReconnectsWithBackoffAndAsksForAFullRead) {
  const uint64_t epoch = listener_->Watch(10);
  feed_->SetReachable(false);
  feed_->Push({.lost = true});
  ASSERT_TRUE(Eventually([&] { return feed_->reconnects() >= 2; }));
  EXPECT_EQ(listener_->reconnections(), 0u);
  EXPECT_FALSE(listener_->Take(10, epoch).resync);  // not yet back
  feed_->SetReachable(true);
  ASSERT_TRUE(Eventually([&] { return listener_->reconnections() == 1; }));
  const PlanChangeListener::Pending pending = listener_->Take(10, epoch);
  EXPECT_TRUE(pending.resync);
  EXPECT_FALSE(listener_->Take(10, pending.epoch).resync);
  // Changes are heard again afterwards.
  feed_->Push({.changes = {Plan(10, 5)}});
  ASSERT_TRUE(Eventually([&] { return listener_->changes_heard() == 1; }));
  EXPECT_EQ(listener_->Take(10, pending.epoch).plans.size(), 1u);
}

TEST_F(PlanChangeListenerTest, StopsPromptlyWhileReconnecting) {
  feed_->SetReachable(false);
  feed_->Push({.lost = true});
  ASSERT_TRUE(Eventually([&] { return feed_->reconnects() >= 1; }));
  const auto start = std::chrono::steady_clock::now();
  listener_.reset();  // inside a backoff pause of up to 30 s
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

}  // namespace
}  // namespace ember
