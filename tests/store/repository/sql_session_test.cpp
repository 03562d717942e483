// SqlSession (store/repository/sql_session.h): the same SQL, with the same parameters and
// results, on a SQLite file and on a PostgreSQL server.
#include "store/repository/sql_session.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/postgres/pg_sql_session.h"
#include "tests/store/repository_backends.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

TEST(PostgresPlaceholders, NumberedParametersBecomeDollarOnesOutsideQuotes) {
  EXPECT_EQ(PostgresPlaceholders("SELECT a FROM t WHERE b = ?1 AND c = ?12"),
            "SELECT a FROM t WHERE b = $1 AND c = $12");
  EXPECT_EQ(PostgresPlaceholders("SELECT '?1', \"?2\" FROM t WHERE x = ?3"),
            "SELECT '?1', \"?2\" FROM t WHERE x = $3");
  EXPECT_EQ(PostgresPlaceholders("SELECT 'it''s ?1' WHERE y = ?1"),
            "SELECT 'it''s ?1' WHERE y = $1");
  // A bare ? (no number) is not a parameter of the shared dialect: left as written.
  EXPECT_EQ(PostgresPlaceholders("SELECT ? , ?"), "SELECT ? , ?");
}

class SqlSessionOnBackend : public test::BackendFixture {
 protected:
  // One plan stored through the repository, as the engine stores them.
  PlanRowId StorePlan() {
    InsertResult inserted;
    EXPECT_TRUE(repo_->InsertPlan(env_, sqlite_test::SamplePlan(3), &inserted).ok());
    return inserted.plan_id;
  }
};

TEST_P(SqlSessionOnBackend, ParametersAndResultsOfEveryTypeRoundTrip) {
  const PlanRowId id = StorePlan();
  const NewPlan plan = sqlite_test::SamplePlan(3);
  SqlSession& sql = repo_->sql();
  EXPECT_EQ(sql.backend(), repo_->backend());
  int rows = 0;
  const Status s = sql.Query(
      "SELECT id, ops_blob, explore_ms, origin, last_hit FROM plans "
      "WHERE ops_blob = ?1 AND origin = ?2 AND id = ?3 AND explore_ms > ?4",
      {plan.ops_blob, std::string("local"), int64_t{id}, 1.0}, "a test query",
      [&](const SqlRow& row) {
        ++rows;
        EXPECT_EQ(row.Int64(0), id);
        EXPECT_EQ(row.Blob(1), plan.ops_blob);
        EXPECT_DOUBLE_EQ(row.Double(2), 1.5);
        EXPECT_EQ(row.Text(3), "local");
        EXPECT_TRUE(row.IsNull(4));
        EXPECT_FALSE(row.IsNull(0));
      });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(rows, 1);
}

TEST_P(SqlSessionOnBackend, ExecCountsChangesAndBindsNull) {
  const PlanRowId id = StorePlan();
  SqlSession& sql = repo_->sql();
  int64_t changes = -1;
  ASSERT_TRUE(sql.Exec("UPDATE plans SET hits = hits + ?1, quarantine_reason = ?2 WHERE id = ?3",
                       {int64_t{5}, SqlValue(), int64_t{id}}, "a test update", &changes)
                  .ok());
  EXPECT_EQ(changes, 1);
  ASSERT_TRUE(sql.Exec("UPDATE plans SET hits = 0 WHERE id = ?1", {int64_t{id + 100}},
                       "a test update", &changes)
                  .ok());
  EXPECT_EQ(changes, 0);
  int64_t hits = 0;
  const SqlValue args[] = {int64_t{id}};
  ASSERT_TRUE(QueryInt64(sql, "SELECT CAST(SUM(hits) AS BIGINT) FROM plans WHERE id = ?1", args,
                         "a test sum", &hits)
                  .ok());
  EXPECT_EQ(hits, 5);
}

TEST_P(SqlSessionOnBackend, AFailedWriteTransactionLeavesNothing) {
  const PlanRowId id = StorePlan();
  SqlSession& sql = repo_->sql();
  const Status s = sql.WriteTransaction("a doomed write", [&]() -> Status {
    if (Status r = sql.Exec("UPDATE plans SET hits = 99 WHERE id = ?1", {int64_t{id}}, "an update");
        !r.ok()) {
      return r;
    }
    return Status::IoError("the body gives up");
  });
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_EQ(Raw("SELECT CAST(hits AS TEXT) FROM plans"), "0");
  ASSERT_TRUE(sql.WriteTransaction("a good write",
                                   [&] {
                                     return sql.Exec("UPDATE plans SET hits = 7 WHERE id = ?1",
                                                     {int64_t{id}}, "an update");
                                   })
                  .ok());
  EXPECT_EQ(Raw("SELECT CAST(hits AS TEXT) FROM plans"), "7");
}

TEST_P(SqlSessionOnBackend, ReadTransactionsReadAndRefuseWritesOnAServer) {
  StorePlan();
  SqlSession& sql = repo_->sql();
  int64_t plans = 0;
  ASSERT_TRUE(
      sql.ReadTransaction(
             "counting",
             [&] { return QueryInt64(sql, "SELECT COUNT(*) FROM plans", {}, "counting", &plans); })
          .ok());
  EXPECT_EQ(plans, 1);
  if (postgres()) {
    // READ ONLY: a maintenance read can never change the server by mistake.
    const Status s = sql.ReadTransaction(
        "a write inside a read", [&] { return sql.Exec("DELETE FROM plans", {}, "deleting"); });
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(Raw("SELECT CAST(COUNT(*) AS TEXT) FROM plans"), "1");
  }
}

TEST_P(SqlSessionOnBackend, StoredBytesMeasuresTheStore) {
  StorePlan();
  int64_t bytes = 0;
  ASSERT_TRUE(repo_->sql().StoredBytes(&bytes).ok());
  EXPECT_GT(bytes, 4096);
}

TEST_P(SqlSessionOnBackend, AResultOfTheWrongTypeIsCorruptionNotAMisread) {
  SqlSession& sql = repo_->sql();
  bool called = false;
  const Status s = sql.Query("SELECT fingerprint FROM environments", {}, "a mistyped read",
                             [&](const SqlRow& row) {
                               called = true;
                               (void)row.Int64(0);
                             });
  ASSERT_TRUE(called);
  // SQLite converts text to an integer as its type affinity says; PostgreSQL's binary results
  // carry their type, and a text read as an integer is refused.
  if (postgres()) {
    EXPECT_EQ(s.code(), Status::Code::kCorruption) << s.ToString();
    EXPECT_NE(s.message().find("a mistyped read"), std::string::npos) << s.message();
  }
}

EMBER_ON_EVERY_BACKEND(SqlSessionOnBackend);

}  // namespace
}  // namespace ember
