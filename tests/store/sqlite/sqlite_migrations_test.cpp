// Opening plan databases: migrations applied once, in order, recorded; reopening is a no-op; a
// newer schema is read but never written; files that are not ours (garbage, truncated, another
// program's database, a damaged schema) are refused with a clear Status and left untouched.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include <fmt/format.h>

#include "engine/core/log.h"
#include "store/sqlite/migrations.h"
#include "store/sqlite/plan_database.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::FileSnapshot;
using sqlite_test::RawDb;
using sqlite_test::SamplePlan;
using sqlite_test::TempDir;
using sqlite_test::WriteBytes;
using test::OpenRepository;
using test::OptionsFor;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::SizeIs;

class SqliteMigrations : public testing::Test {
 protected:
  Status Open(std::unique_ptr<SqlitePlanRepository>* repo) {
    return SqlitePlanRepository::Open(OptionsFor(path_), repo);
  }

  // A database at the current schema with a few plans, closed (so WAL is checkpointed away).
  void MakePopulated(int plans = 3, size_t blob_bytes = 0) {
    auto repo = OpenRepository(path_);
    ASSERT_NE(repo, nullptr);
    EnvironmentRowId env = 0;
    ASSERT_TRUE(repo->EnsureEnvironment(test::SampleEnvironment(), &env).ok());
    for (int i = 0; i < plans; ++i) {
      NewPlan plan = SamplePlan(static_cast<uint64_t>(i));
      plan.plan_blob.resize(plan.plan_blob.size() + blob_bytes, 0xAB);
      InsertResult result;
      ASSERT_TRUE(repo->InsertPlan(env, plan, &result).ok());
    }
  }

  TempDir dir_;
  std::string path_ = dir_.File("plans.db");
};

TEST_F(SqliteMigrations, EmbeddedMigrationsAreNumberedWithoutGaps) {
  const auto migrations = EmbeddedMigrations();
  ASSERT_FALSE(migrations.empty());
  for (size_t i = 0; i < migrations.size(); ++i) {
    EXPECT_EQ(migrations[i].version, static_cast<int>(i + 1));
    EXPECT_FALSE(migrations[i].name.empty());
    EXPECT_FALSE(migrations[i].sql.empty());
  }
  EXPECT_EQ(migrations[0].name, "plan_store");
  EXPECT_EQ(LatestSchemaVersion(), static_cast<int>(migrations.size()));
}

TEST_F(SqliteMigrations, NewDatabaseGetsEveryMigrationOnceAndRecordsIt) {
  std::unique_ptr<SqlitePlanRepository> repo;
  ASSERT_TRUE(Open(&repo).ok());
  EXPECT_TRUE(repo->database().created());
  EXPECT_EQ(repo->database().migrations_applied(), LatestSchemaVersion());
  EXPECT_EQ(repo->database().schema_version(), LatestSchemaVersion());
  EXPECT_EQ(repo->database().journal_mode(), "wal");
  EXPECT_TRUE(repo->writable());

  RawDb raw(path_);
  EXPECT_THAT(raw.Column("SELECT version || ':' || name FROM schema_migrations ORDER BY version"),
              ElementsAre("1:plan_store", "2:plan_kernels", "3:miss_explanation", "4:plan_ids",
                          "5:device_facts", "6:graph_recipes"));
  EXPECT_GT(raw.Int("SELECT applied_at FROM schema_migrations WHERE version = 1"),
            1'600'000'000'000);
  EXPECT_EQ(raw.Int("PRAGMA application_id"), kPlanDbApplicationId);
  EXPECT_THAT(raw.Column("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"),
              ElementsAre("device_facts", "environments", "graph_recipes", "kernels",
                          "plan_kernels", "plan_usage", "plans", "schema_migrations",
                          "sqlite_sequence", "triggers", "workload_misses", "workloads"));
  EXPECT_THAT(raw.Column("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE "
                         "'sqlite_autoindex%' ORDER BY name"),
              ElementsAre("kernels_by_plan", "plan_kernels_by_kernel", "plan_usage_by_plan",
                          "plans_by_first_kind", "plans_by_first_op"));
}

TEST_F(SqliteMigrations, ReopeningAppliesNothingAndKeepsData) {
  MakePopulated();
  for (int i = 0; i < 3; ++i) {
    std::unique_ptr<SqlitePlanRepository> repo;
    ASSERT_TRUE(Open(&repo).ok());
    EXPECT_FALSE(repo->database().created());
    EXPECT_EQ(repo->database().migrations_applied(), 0);
    EXPECT_EQ(repo->database().schema_version(), LatestSchemaVersion());
  }
  RawDb raw(path_);
  EXPECT_EQ(raw.Int("SELECT count(*) FROM schema_migrations"), LatestSchemaVersion());
  EXPECT_EQ(raw.Int("SELECT count(*) FROM plans"), 3);
}

TEST_F(SqliteMigrations, NewerSchemaOpensReadOnlyAndRefusesWritesWithoutTouchingTheFile) {
  MakePopulated();
  {
    RawDb raw(path_);
    raw.Exec("INSERT INTO schema_migrations VALUES (99, 'from_the_future', 0)");
    raw.Exec("PRAGMA journal_mode = DELETE");
  }
  const FileSnapshot before = FileSnapshot::Of(path_);
  {
    ScopedLogCapture log(LogLevel::kBasic);
    std::unique_ptr<SqlitePlanRepository> repo;
    const Status open = Open(&repo);
    ASSERT_TRUE(open.ok()) << open.ToString();
    EXPECT_FALSE(repo->writable());
    EXPECT_THAT(repo->database().read_only_reason(), HasSubstr("schema version 99"));
    EXPECT_THAT(repo->database().read_only_reason(),
                HasSubstr(fmt::format("this binary's {}", LatestSchemaVersion())));
    EXPECT_THAT(log.messages(), SizeIs(1));
    EXPECT_THAT(log.messages()[0], HasSubstr("newer"));

    // Reads work.
    EnvironmentRowId env = 0;
    ASSERT_TRUE(repo->EnsureEnvironment(test::SampleEnvironment(), &env).ok());
    LoadedPlans loaded;
    ASSERT_TRUE(repo->LoadPlansByFirstOp(env, 7, &loaded).ok());
    EXPECT_THAT(loaded.plans, SizeIs(3));

    // Every write is refused, saying why.
    InsertResult inserted;
    const Status insert = repo->InsertPlan(env, SamplePlan(100), &inserted);
    EXPECT_EQ(insert.code(), Status::Code::kUnavailable);
    EXPECT_THAT(insert.message(), HasSubstr("newer than this binary"));
    WorkloadRow workload;
    EXPECT_EQ(repo->GetOrCreateWorkload(env, "new", &workload).code(), Status::Code::kUnavailable);
    EXPECT_EQ(repo->Quarantine(loaded.plans[0].id, "x").code(), Status::Code::kUnavailable);
    const PlanRowId hit = loaded.plans[0].id;
    EXPECT_EQ(repo->RecordHits({&hit, 1}, std::nullopt).code(), Status::Code::kUnavailable);
    KernelRowId kernel = 0;
    EXPECT_EQ(repo->PutKernel(env, sqlite_test::SampleKernel("k"), &kernel).code(),
              Status::Code::kUnavailable);
    EnvironmentRowId other = 0;
    EXPECT_EQ(repo->EnsureEnvironment(test::SampleEnvironment("Other"), &other).code(),
              Status::Code::kNotFound);
  }
  EXPECT_TRUE(FileSnapshot::Of(path_) == before);
}

TEST_F(SqliteMigrations, NewerSchemaInWalModeIsNotModifiedEither) {
  MakePopulated();
  {
    RawDb raw(path_);
    raw.Exec(fmt::format("INSERT INTO schema_migrations VALUES ({}, 'next', 0)",
                         LatestSchemaVersion() + 1));
  }
  ASSERT_EQ(test::ReadFile(path_)[18], 2);  // Still a WAL database.
  const FileSnapshot before = FileSnapshot::Of(path_);
  {
    std::unique_ptr<SqlitePlanRepository> repo;
    ASSERT_TRUE(Open(&repo).ok());
    EXPECT_FALSE(repo->writable());
    EnvironmentRowId env = 0;
    ASSERT_TRUE(repo->EnsureEnvironment(test::SampleEnvironment(), &env).ok());
    LoadedPlans loaded;
    ASSERT_TRUE(repo->LoadPlansByFirstOp(env, 7, &loaded).ok());
    EXPECT_THAT(loaded.plans, SizeIs(3));
    WorkloadRow workload;
    EXPECT_EQ(repo->GetOrCreateWorkload(env, "w", &workload).code(), Status::Code::kUnavailable);
  }
  EXPECT_TRUE(FileSnapshot::Of(path_) == before);
}

TEST_F(SqliteMigrations, ReadOnlyOptionNeverWrites) {
  MakePopulated();
  {
    RawDb raw(path_);
    raw.Exec("PRAGMA journal_mode = DELETE");
  }
  const FileSnapshot before = FileSnapshot::Of(path_);
  PlanDbOptions options = OptionsFor(path_);
  options.read_only = true;
  std::unique_ptr<SqlitePlanRepository> repo;
  ASSERT_TRUE(SqlitePlanRepository::Open(options, &repo).ok());
  EXPECT_FALSE(repo->writable());
  EnvironmentRowId env = 0;
  ASSERT_TRUE(repo->EnsureEnvironment(test::SampleEnvironment(), &env).ok());
  InsertResult inserted;
  EXPECT_EQ(repo->InsertPlan(env, SamplePlan(5), &inserted).code(), Status::Code::kUnavailable);
  repo.reset();
  EXPECT_TRUE(FileSnapshot::Of(path_) == before);
}

TEST_F(SqliteMigrations, RecordedMigrationWithAnotherNameIsRefused) {
  MakePopulated();
  {
    RawDb raw(path_);
    raw.Exec("UPDATE schema_migrations SET name = 'something_else' WHERE version = 1");
  }
  std::unique_ptr<SqlitePlanRepository> repo;
  const Status s = Open(&repo);
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_THAT(s.message(), HasSubstr("'something_else'"));
  EXPECT_THAT(s.message(), HasSubstr("incompatible build"));
}

TEST_F(SqliteMigrations, GarbageFileIsRefusedAndUntouched) {
  std::string garbage(8192, '\0');
  std::mt19937 rng(42);
  for (char& c : garbage) c = static_cast<char>(rng());
  WriteBytes(path_, garbage);
  const FileSnapshot before = FileSnapshot::Of(path_);
  std::unique_ptr<SqlitePlanRepository> repo;
  const Status s = Open(&repo);
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_THAT(s.message(), HasSubstr("is not a SQLite database"));
  EXPECT_THAT(s.message(), HasSubstr(path_));
  EXPECT_EQ(repo, nullptr);
  EXPECT_TRUE(FileSnapshot::Of(path_) == before);
  EXPECT_FALSE(std::filesystem::exists(path_ + "-wal"));
}

TEST_F(SqliteMigrations, FileShorterThanAHeaderIsRefusedAndUntouched) {
  WriteBytes(path_, "SQLite format 3");
  const FileSnapshot before = FileSnapshot::Of(path_);
  std::unique_ptr<SqlitePlanRepository> repo;
  const Status s = Open(&repo);
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_THAT(s.message(), HasSubstr("fewer than a database header"));
  EXPECT_TRUE(FileSnapshot::Of(path_) == before);
}

TEST_F(SqliteMigrations, TruncatedDatabaseIsRefusedAndUntouched) {
  MakePopulated(/*plans=*/20, /*blob_bytes=*/3000);
  const std::string whole = test::ReadFile(path_);
  ASSERT_GT(whole.size(), 16u * 4096u);
  for (size_t keep : {whole.size() / 2, size_t{4096}, whole.size() - 100}) {
    WriteBytes(path_, std::string_view(whole).substr(0, keep));
    const FileSnapshot before = FileSnapshot::Of(path_);
    std::unique_ptr<SqlitePlanRepository> repo;
    const Status s = Open(&repo);
    EXPECT_EQ(s.code(), Status::Code::kCorruption) << keep;
    EXPECT_THAT(s.message(), HasSubstr("truncated")) << keep;
    EXPECT_TRUE(FileSnapshot::Of(path_) == before) << keep;
  }
}

TEST_F(SqliteMigrations, AnotherProgramsDatabaseIsRefusedAndUntouched) {
  {
    RawDb raw(path_);
    raw.Exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)");
    raw.Exec("INSERT INTO customers (name) VALUES ('ada')");
  }
  chmod(path_.c_str(), 0600);
  const FileSnapshot before = FileSnapshot::Of(path_);
  std::unique_ptr<SqlitePlanRepository> repo;
  const Status s = Open(&repo);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("another program"));
  EXPECT_THAT(s.message(), HasSubstr("customers"));
  EXPECT_TRUE(FileSnapshot::Of(path_) == before);
  EXPECT_FALSE(std::filesystem::exists(path_ + "-wal"));
}

TEST_F(SqliteMigrations, DatabaseWithAnotherApplicationIdIsRefused) {
  {
    RawDb raw(path_);
    raw.Exec("PRAGMA application_id = 42");
  }
  chmod(path_.c_str(), 0600);
  const FileSnapshot before = FileSnapshot::Of(path_);
  std::unique_ptr<SqlitePlanRepository> repo;
  const Status s = Open(&repo);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("application_id 0x0000002a"));
  EXPECT_TRUE(FileSnapshot::Of(path_) == before);
}

TEST_F(SqliteMigrations, EmptySqliteDatabaseIsInitialized) {
  {
    RawDb raw(path_);
    raw.Exec("PRAGMA user_version = 3");  // Writes a header and an empty schema.
  }
  chmod(path_.c_str(), 0600);
  std::unique_ptr<SqlitePlanRepository> repo;
  const Status s = Open(&repo);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(repo->database().migrations_applied(), LatestSchemaVersion());
}

TEST_F(SqliteMigrations, MissingTableIsReportedAtOpen) {
  MakePopulated();
  {
    RawDb raw(path_);
    raw.Exec("DROP TABLE kernels");
  }
  std::unique_ptr<SqlitePlanRepository> repo;
  const Status s = Open(&repo);
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_THAT(s.message(), HasSubstr("missing table 'kernels'"));
}

TEST_F(SqliteMigrations, MissingTableAtRunTimeGivesAClearStatus) {
  MakePopulated();
  std::unique_ptr<SqlitePlanRepository> repo;
  ASSERT_TRUE(Open(&repo).ok());
  EnvironmentRowId env = 0;
  ASSERT_TRUE(repo->EnsureEnvironment(test::SampleEnvironment(), &env).ok());
  {
    RawDb raw(path_);
    raw.Exec("DROP TABLE triggers");
  }
  LoadedPlans loaded;
  const Status s = repo->LoadPlansByFirstOp(env, 7, &loaded);
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_THAT(s.message(), HasSubstr("no such table: triggers"));
  EXPECT_THAT(s.message(), HasSubstr("loading triggers"));
}

TEST_F(SqliteMigrations, LostMigrationsTableIsCorruptionNotForeign) {
  MakePopulated();
  {
    RawDb raw(path_);
    raw.Exec("DROP TABLE schema_migrations");
  }
  std::unique_ptr<SqlitePlanRepository> repo;
  const Status s = Open(&repo);
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_THAT(s.message(), HasSubstr("lost its schema_migrations"));
}

}  // namespace
}  // namespace ember
