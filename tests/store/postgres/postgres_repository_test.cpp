// What only the PostgreSQL repository has: locations that are URIs (and whose passwords are
// never shown), an unreachable server, a schema newer than the binary, a foreign database, and
// hosts that start together and migrate once.
#include <chrono>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/core/plan_db_location.h"
#include "store/postgres/pg_migrations.h"
#include "store/postgres/postgres_plan_repository.h"
#include "store/repository/plan_writer.h"
#include "tests/common/process.h"
#include "tests/store/repository_backends.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using testing::HasSubstr;
using testing::Not;

TEST(PostgresLocation, UrisAreToldFromPaths) {
  EXPECT_TRUE(IsPostgresUri("postgresql://db.example/plans"));
  EXPECT_TRUE(IsPostgresUri("postgres://u@h:5432/d"));
  EXPECT_FALSE(IsPostgresUri("/var/cache/ember/plans.db"));
  EXPECT_FALSE(IsPostgresUri("postgresql.db"));
}

TEST(PostgresLocation, PasswordsAreNeverShown) {
  EXPECT_EQ(RedactedUri("postgresql://ember:s3cret@db.example:5432/plans?sslmode=require"),
            "postgresql://ember:***@db.example:5432/plans?sslmode=require");
  EXPECT_EQ(RedactedUri("postgres://ember@db/plans?password=s3cret&sslmode=verify-full"),
            "postgres://ember@db/plans?password=***&sslmode=verify-full");
  EXPECT_EQ(RedactedUri("postgresql://a:b@h"), "postgresql://a:***@h");
  EXPECT_EQ(RedactedUri("postgresql:///plans?host=/run/pg"), "postgresql:///plans?host=/run/pg");
  // An '@' inside the password: the last one before the host ends the user info.
  EXPECT_EQ(RedactedUri("postgresql://u:p@ss@h/d"), "postgresql://u:***@h/d");
}

TEST(PostgresRepository, AnUnreachableServerIsUnavailableAndTheMessageHasNoPassword) {
  PlanDbOptions options;
  // Port 1 on loopback: nothing listens there.
  options.path = "postgresql://ember:topsecret@127.0.0.1:1/plans?connect_timeout=2";
  std::unique_ptr<PlanRepository> repo;
  const Status s = PlanRepository::Open(options, &repo);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("127.0.0.1"));
  EXPECT_THAT(s.message(), Not(HasSubstr("topsecret")));
  EXPECT_EQ(repo, nullptr);
}

class PostgresOnly : public test::BackendFixture {};
INSTANTIATE_TEST_SUITE_P(Server, PostgresOnly, testing::Values("postgresql"), test::BackendName);

TEST_P(PostgresOnly, ANewerSchemaIsReadNeverWritten) {
  RawExec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 0)");
  std::unique_ptr<PlanRepository> repo = Open();
  ASSERT_NE(repo, nullptr);
  EXPECT_FALSE(repo->writable());
  EXPECT_THAT(repo->read_only_reason(), HasSubstr("99"));
  InsertResult result;
  EXPECT_EQ(repo->InsertPlan(env_, sqlite_test::SamplePlan(1), &result).code(),
            Status::Code::kUnavailable);
  LoadedPlans loaded;
  EXPECT_TRUE(repo->LoadPlansByFirstOp(env_, 7, &loaded).ok());
}

TEST_P(PostgresOnly, AForeignDatabaseIsRefused) {
  const std::string foreign = test::FreshPostgresDatabase(*server_);
  std::unique_ptr<pg::Connection> conn;
  ASSERT_TRUE(pg::Connection::Open(foreign, &conn).ok());
  ASSERT_TRUE(conn->Exec("CREATE TABLE plans (x int)", "a foreign table").ok());
  PlanDbOptions options;
  options.path = foreign;
  std::unique_ptr<PlanRepository> repo;
  const Status s = PlanRepository::Open(options, &repo);
  EXPECT_EQ(s.code(), Status::Code::kCorruption) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("not an ember plan database"));
}

TEST_P(PostgresOnly, HostsThatStartTogetherMigrateOnce) {
  const std::string empty = test::FreshPostgresDatabase(*server_);
  std::vector<pid_t> children;
  for (int i = 0; i < 6; ++i) {
    children.push_back(test::ForkChild([&] {
      PlanDbOptions options;
      options.path = empty;
      std::unique_ptr<PlanRepository> repo;
      return PlanRepository::Open(options, &repo).ok() ? 0 : 1;
    }));
  }
  for (pid_t pid : children) EXPECT_EQ(test::WaitChild(pid), 0);
  std::unique_ptr<pg::Connection> conn;
  ASSERT_TRUE(pg::Connection::Open(empty, &conn).ok());
  pg::Result r;
  ASSERT_TRUE(
      conn->Exec("SELECT count(*), max(version) FROM schema_migrations", "counting", &r).ok());
  // Each migration once, the newest last.
  const int64_t latest = EmbeddedPostgresMigrations().back().version;
  EXPECT_EQ(r.Int64(0, 0), latest);
  EXPECT_EQ(r.Int64(0, 1), latest);
}

TEST_P(PostgresOnly, AStoppedServerIsUnavailableAndARestartedOneServesAgain) {
  InsertResult result;
  ASSERT_TRUE(repo_->InsertPlan(env_, sqlite_test::SamplePlan(1), &result).ok());
  ASSERT_TRUE(server_->Stop());
  LoadedPlans loaded;
  const Status s = repo_->LoadPlansByFirstOp(env_, 7, &loaded);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable) << s.ToString();
  ASSERT_TRUE(server_->Restart());
  Reopen();
  ASSERT_TRUE(repo_->LoadPlansByFirstOp(env_, 7, &loaded).ok());
  EXPECT_EQ(loaded.plans.size(), 1u);
}

// The server stops under a running writer: a sync does not wait for it, what was published
// meanwhile is held and written once the server is back, and the workload counts each
// exploration once.
TEST_P(PostgresOnly, AWriterHoldsItsWritesWhileTheServerIsDownAndWritesThemWhenItIsBack) {
  WorkloadRow workload;
  ASSERT_TRUE(repo_->GetOrCreateWorkload(env_, "train", &workload).ok());
  PlanWriter writer(Open(), env_, workload.id);
  writer.Publish(0, {sqlite_test::SamplePlan(1), {sqlite_test::OnOps("t")}, {}});
  writer.Exploration();
  writer.Flush();
  ASSERT_EQ(writer.held(), 0u);

  ASSERT_TRUE(server_->Stop());
  writer.Publish(1, {sqlite_test::SamplePlan(2), {}, {}});
  writer.Exploration();
  writer.Hit(0);
  writer.Flush();  // returns: held writes count as applied
  EXPECT_GT(writer.held(), 0u);
  EXPECT_FALSE(writer.failed());

  ASSERT_TRUE(server_->Restart());
  for (int i = 0; i < 100 && writer.held() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(writer.held(), 0u);
  EXPECT_FALSE(writer.failed());
  EXPECT_EQ(writer.dropped(), 0u);
  Reopen();
  LoadedPlans loaded;
  ASSERT_TRUE(repo_->LoadPlansByFirstOp(env_, 7, &loaded).ok());
  EXPECT_EQ(loaded.plans.size(), 2u);
  ASSERT_TRUE(repo_->GetWorkload(workload.id, &workload).ok());
  EXPECT_EQ(workload.explorations, 2);
  EXPECT_EQ(Raw("SELECT CAST(hits AS TEXT) FROM plans WHERE origin = 'local' ORDER BY id LIMIT 1"),
            "1");
}

}  // namespace
}  // namespace ember
