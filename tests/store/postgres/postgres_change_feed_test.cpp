// The PostgreSQL change feed (store/postgres/pg_change_feed.h) on a real server: what a
// publication announces, when (at commit, never for a rollback), whose it is, and a feed that
// loses its server and listens again.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

#include "store/postgres/pg_change_feed.h"
#include "tests/store/repository_backends.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using std::chrono::milliseconds;

TEST(PlanChangePayload, ParsesWhatThePublisherWritesAndNothingElse) {
  const std::optional<PlanChange> change =
      ParsePlanChange("p 3 -2 000000000000000a00000000000000ff 1a2b.00000000deadbeef");
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(change->kind, PlanChange::Kind::kPlan);
  EXPECT_EQ(change->environment, 3);
  EXPECT_EQ(change->first_op_hash, 0xFFFFFFFFFFFFFFFEull);  // the signed column's bits
  EXPECT_EQ(change->plan_key, (Hash128{.low = 0xff, .high = 0xa}));
  std::string tag;
  ASSERT_TRUE(ParsePlanChange("t 1 7 0123456789abcdef0123456789abcdef x", &tag).has_value());
  EXPECT_EQ(tag, "x");
  for (const char* bad :
       {"", "p", "p 1 2", "q 1 2 0123456789abcdef0123456789abcdef x",
        "p one 2 0123456789abcdef0123456789abcdef x", "p 1 2 0123456789abcdef x",
        "p 1 2 0123456789abcdef0123456789abcdef", "p 1 2 0123456789abcdef0123456789abcdeg x"}) {
    EXPECT_FALSE(ParsePlanChange(bad).has_value()) << bad;
  }
}

class PostgresChangeFeed : public test::BackendFixture {
 protected:
  void SetUp() override {
    BackendFixture::SetUp();
    if (IsSkipped()) return;
    ASSERT_TRUE(repo_->OpenChangeFeed(&feed_).ok());
    ASSERT_NE(feed_, nullptr);
  }

  // What the feed hears within `within` (stops at the first batch).
  std::vector<PlanChange> Hear(milliseconds within = milliseconds(3000)) {
    std::vector<PlanChange> changes;
    const auto deadline = std::chrono::steady_clock::now() + within;
    while (changes.empty() && std::chrono::steady_clock::now() < deadline) {
      const Status s = feed_->Wait(milliseconds(100), &changes);
      EXPECT_TRUE(s.ok()) << s.ToString();
      if (!s.ok()) break;
    }
    return changes;
  }

  std::unique_ptr<PlanChangeFeed> feed_;
};
INSTANTIATE_TEST_SUITE_P(Server, PostgresChangeFeed, testing::Values("postgresql"),
                         test::BackendName);

TEST_P(PostgresChangeFeed, APlanStoredIsHeardWithItsFirstOpKeyAndPublisher) {
  InsertResult result;
  const NewPlan plan = sqlite_test::SamplePlan(1, 0x8000000000000007ull);
  ASSERT_TRUE(repo_->InsertPlan(env_, plan, &result).ok());
  std::vector<PlanChange> changes = Hear();
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].kind, PlanChange::Kind::kPlan);
  EXPECT_EQ(changes[0].environment, env_);
  EXPECT_EQ(changes[0].first_op_hash, plan.first_op_hash);
  EXPECT_EQ(changes[0].plan_key, plan.plan_key);
  EXPECT_TRUE(changes[0].from_this_process);

  // Another process (a forked child draws its own tag) publishes: not this process's.
  const pid_t child = fork();
  if (child == 0) {
    std::unique_ptr<PlanRepository> repo;
    InsertResult inserted;
    const bool ok = PlanRepository::Open(test::OptionsFor(location_), &repo).ok() &&
                    repo->InsertPlan(env_, sqlite_test::SamplePlan(2), &inserted).ok();
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_EQ(status, 0);
  changes = Hear();
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].plan_key, sqlite_test::SamplePlan(2).plan_key);
  EXPECT_FALSE(changes[0].from_this_process);

  // A plan that was already stored announces nothing.
  ASSERT_TRUE(repo_->InsertPlan(env_, plan, &result).ok());
  EXPECT_EQ(result.outcome, InsertOutcome::kExisting);
  EXPECT_TRUE(Hear(milliseconds(300)).empty());
}

TEST_P(PostgresChangeFeed, ARolledBackPublicationIsNeverHeard) {
  repo_->SetPublishHookForTesting([](size_t) { throw std::runtime_error("killed mid-publish"); });
  PublishBatch batch{.environment_id = env_};
  batch.plans.push_back({sqlite_test::SamplePlan(1), {sqlite_test::OnOps("a")}, {}});
  PublishResult result;
  EXPECT_FALSE(repo_->Publish(batch, &result).ok());
  EXPECT_TRUE(Hear(milliseconds(500)).empty());

  repo_->SetPublishHookForTesting(nullptr);
  ASSERT_TRUE(repo_->Publish(batch, &result).ok());
  const std::vector<PlanChange> changes = Hear();
  // The plan and its triggers, announced together at the commit.
  ASSERT_FALSE(changes.empty());
  EXPECT_EQ(changes[0].kind, PlanChange::Kind::kPlan);
}

TEST_P(PostgresChangeFeed, TriggersAppendedAreHeardAndDuplicatesAreNot) {
  InsertResult result;
  ASSERT_TRUE(repo_->InsertPlan(env_, sqlite_test::SamplePlan(1), &result).ok());
  ASSERT_EQ(Hear().size(), 1u);
  const TriggerRow trigger = sqlite_test::OnOps("x");
  ASSERT_TRUE(repo_->AppendTriggers(result.plan_id, std::span(&trigger, 1)).ok());
  std::vector<PlanChange> changes = Hear();
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].kind, PlanChange::Kind::kTrigger);
  EXPECT_EQ(changes[0].plan_key, sqlite_test::SamplePlan(1).plan_key);
  ASSERT_TRUE(repo_->AppendTriggers(result.plan_id, std::span(&trigger, 1)).ok());
  EXPECT_TRUE(Hear(milliseconds(300)).empty());
}

TEST_P(PostgresChangeFeed, InterruptEndsAWaitBeforeItsTimeout) {
  std::thread interrupter([&] {
    std::this_thread::sleep_for(milliseconds(100));
    feed_->Interrupt();
  });
  const auto start = std::chrono::steady_clock::now();
  std::vector<PlanChange> changes;
  EXPECT_TRUE(feed_->Wait(milliseconds(60000), &changes).ok());
  interrupter.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_TRUE(changes.empty());
}

TEST_P(PostgresChangeFeed, AFeedThatLostItsServerSaysSoAndListensAgainAfterReconnecting) {
  ASSERT_TRUE(server_->Stop());
  std::vector<PlanChange> changes;
  Status s;
  for (int i = 0; i < 50 && s.ok(); ++i) s = feed_->Wait(milliseconds(100), &changes);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable) << s.ToString();
  EXPECT_FALSE(feed_->Reconnect().ok());
  ASSERT_TRUE(server_->Restart());
  ASSERT_TRUE(feed_->Reconnect().ok());
  Reopen();
  InsertResult result;
  ASSERT_TRUE(repo_->InsertPlan(env_, sqlite_test::SamplePlan(3), &result).ok());
  changes = Hear();
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].plan_key, sqlite_test::SamplePlan(3).plan_key);
}

}  // namespace
}  // namespace ember
