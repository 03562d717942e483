// The thin SQLite layer: typed binds and columns, transactions that roll back on every failure
// path (error Status, exception), busy handling with bounded retries, and the mapping from
// SQLite codes to Status (Note [SQLite errors], Note [Busy handling]).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <limits>
#include <stdexcept>
#include <thread>

#include "store/sqlite/sqlite_database.h"
#include "store/sqlite/sqlite_error.h"
#include "store/sqlite/sqlite_statement.h"
#include "store/sqlite/sqlite_transaction.h"
#include "tests/store/sqlite_test_util.h"

namespace ember {
namespace {

using sqlite_test::RawDb;
using sqlite_test::TempDir;
using sqlite_test::WriteBytes;
using testing::HasSubstr;

class SqliteWrapper : public testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.File("wrapper.db");
    WriteBytes(path_, "");
    ASSERT_TRUE(Open(&db_).ok());
    ASSERT_TRUE(db_.Exec("PRAGMA journal_mode = WAL", "wal").ok());
    ASSERT_TRUE(db_.Exec("CREATE TABLE t (i INTEGER, d REAL, s TEXT, b BLOB)", "create").ok());
  }

  Status Open(SqliteDatabase* db, std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    return SqliteDatabase::Open(path_, SqliteDatabase::Mode::kReadWrite, timeout, db);
  }

  int64_t Rows() {
    SqliteStatement count;
    EXPECT_TRUE(db_.Prepare("SELECT count(*) FROM t", "count", &count).ok());
    bool row = false;
    EXPECT_TRUE(count.Step(&row).ok());
    return count.ColumnInt64(0);
  }

  Status InsertOne(SqliteDatabase& db) {
    SqliteStatement insert;
    if (Status s = db.Prepare("INSERT INTO t (i) VALUES (1)", "inserting", &insert); !s.ok()) {
      return s;
    }
    return insert.Run();
  }

  TempDir dir_;
  std::string path_;
  SqliteDatabase db_;
};

TEST_F(SqliteWrapper, BindsAndReadsEveryType) {
  SqliteStatement insert;
  ASSERT_TRUE(db_.Prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4)", "inserting", &insert).ok());
  const Blob blob = {0, 1, 2, 255};
  insert.BindInt64(1, std::numeric_limits<int64_t>::min());
  insert.BindDouble(2, 2.5);
  insert.BindText(3, std::string_view("a\0b", 3));
  insert.BindBlob(4, blob);
  ASSERT_TRUE(insert.Run().ok());

  SqliteStatement select;
  ASSERT_TRUE(db_.Prepare("SELECT i, d, s, b FROM t", "selecting", &select).ok());
  bool row = false;
  ASSERT_TRUE(select.Step(&row).ok());
  ASSERT_TRUE(row);
  EXPECT_EQ(select.ColumnInt64(0), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(select.ColumnDouble(1), 2.5);
  EXPECT_EQ(select.ColumnText(2), std::string("a\0b", 3));
  EXPECT_EQ(select.ColumnBlob(3), blob);
  ASSERT_TRUE(select.Step(&row).ok());
  EXPECT_FALSE(row);
}

TEST_F(SqliteWrapper, EmptyBlobIsNotNull) {
  SqliteStatement insert;
  ASSERT_TRUE(db_.Prepare("INSERT INTO t (b) VALUES (?1)", "inserting", &insert).ok());
  insert.BindBlob(1, Blob{});
  ASSERT_TRUE(insert.Run().ok());
  SqliteStatement select;
  ASSERT_TRUE(db_.Prepare("SELECT b IS NULL, length(b) FROM t", "selecting", &select).ok());
  bool row = false;
  ASSERT_TRUE(select.Step(&row).ok());
  EXPECT_EQ(select.ColumnInt64(0), 0);
  EXPECT_EQ(select.ColumnInt64(1), 0);
}

TEST_F(SqliteWrapper, FailedBindIsReportedByStep) {
  SqliteStatement insert;
  ASSERT_TRUE(db_.Prepare("INSERT INTO t (i) VALUES (?1)", "inserting a row", &insert).ok());
  insert.BindInt64(9, 1);
  const Status s = insert.Run();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("inserting a row (binding parameter 9)"));
  EXPECT_EQ(Rows(), 0);
}

TEST_F(SqliteWrapper, PrepareErrorNamesTheOperationAndTheFile) {
  SqliteStatement bad;
  const Status s = db_.Prepare("SELECT * FROM missing", "reading the missing table", &bad);
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_THAT(s.message(), HasSubstr("reading the missing table"));
  EXPECT_THAT(s.message(), HasSubstr("no such table: missing"));
  EXPECT_THAT(s.message(), HasSubstr(path_));
}

TEST_F(SqliteWrapper, TransactionCommitsWhenTheBodySucceeds) {
  const Status s =
      RunTransaction(db_, TransactionKind::kWrite, "inserting", [&] { return InsertOne(db_); });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Rows(), 1);
}

TEST_F(SqliteWrapper, TransactionRollsBackWhenTheBodyFails) {
  const Status s = RunTransaction(db_, TransactionKind::kWrite, "inserting", [&] {
    EXPECT_TRUE(InsertOne(db_).ok());
    return Status::InvalidArgument("changed my mind");
  });
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(Rows(), 0);
}

TEST_F(SqliteWrapper, TransactionRollsBackWhenTheBodyThrows) {
  const Status s = RunTransaction(db_, TransactionKind::kWrite, "inserting", [&]() -> Status {
    EXPECT_TRUE(InsertOne(db_).ok());
    throw std::runtime_error("boom");
  });
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_THAT(s.message(), HasSubstr("boom"));
  EXPECT_EQ(Rows(), 0);
  // The connection is usable afterwards (no transaction left open).
  EXPECT_TRUE(RunTransaction(db_, TransactionKind::kWrite, "inserting", [&] {
                return InsertOne(db_);
              }).ok());
}

TEST_F(SqliteWrapper, LockHeldTooLongGivesUnavailableAfterBoundedRetries) {
  RawDb other(path_);
  other.Exec("BEGIN IMMEDIATE");
  SqliteDatabase impatient;
  ASSERT_TRUE(Open(&impatient, std::chrono::milliseconds(1)).ok());
  const auto start = std::chrono::steady_clock::now();
  const Status s = RunTransaction(impatient, TransactionKind::kWrite, "inserting",
                                  [&] { return InsertOne(impatient); },
                                  {.attempts = 3, .first_backoff = std::chrono::milliseconds(2)});
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(s.code(), Status::Code::kUnavailable) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("locked"));
  EXPECT_EQ(impatient.last_error_code(), SQLITE_BUSY);
  EXPECT_LT(elapsed, std::chrono::seconds(2));
  other.Exec("ROLLBACK");
}

TEST_F(SqliteWrapper, BusyTransactionSucceedsOnceTheLockIsReleased) {
  RawDb other(path_);
  other.Exec("BEGIN IMMEDIATE");
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    other.Exec("COMMIT");
  });
  SqliteDatabase impatient;
  ASSERT_TRUE(Open(&impatient, std::chrono::milliseconds(1)).ok());
  const Status s = RunTransaction(impatient, TransactionKind::kWrite, "inserting",
                                  [&] { return InsertOne(impatient); },
                                  {.attempts = 20, .first_backoff = std::chrono::milliseconds(5)});
  release.join();
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Rows(), 1);
}

TEST(SqliteErrors, CodesMapToStatusesThatSayWhatHappened) {
  const Status full = SqliteError(nullptr, SQLITE_FULL, "/p.db", "publishing plans");
  EXPECT_EQ(full.code(), Status::Code::kResourceExhausted);
  EXPECT_THAT(full.message(), HasSubstr("disk full"));
  EXPECT_THAT(full.message(), HasSubstr("publishing plans"));
  EXPECT_THAT(full.message(), HasSubstr("/p.db"));
  EXPECT_EQ(SqliteError(nullptr, SQLITE_BUSY, "/p.db", "x").code(), Status::Code::kUnavailable);
  EXPECT_EQ(SqliteError(nullptr, SQLITE_BUSY_SNAPSHOT, "/p.db", "x").code(),
            Status::Code::kUnavailable);
  EXPECT_EQ(SqliteError(nullptr, SQLITE_LOCKED, "/p.db", "x").code(), Status::Code::kUnavailable);
  const Status notadb = SqliteError(nullptr, SQLITE_NOTADB, "/p.db", "x");
  EXPECT_EQ(notadb.code(), Status::Code::kCorruption);
  EXPECT_THAT(notadb.message(), HasSubstr("not a SQLite database"));
  EXPECT_EQ(SqliteError(nullptr, SQLITE_CORRUPT, "/p.db", "x").code(), Status::Code::kCorruption);
  EXPECT_EQ(SqliteError(nullptr, SQLITE_READONLY, "/p.db", "x").code(), Status::Code::kUnavailable);
  EXPECT_EQ(SqliteError(nullptr, SQLITE_CONSTRAINT_FOREIGNKEY, "/p.db", "x").code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(SqliteError(nullptr, SQLITE_IOERR_WRITE, "/p.db", "x").code(), Status::Code::kIoError);
  EXPECT_TRUE(IsSqliteBusy(SQLITE_BUSY_RECOVERY));
  EXPECT_FALSE(IsSqliteBusy(SQLITE_FULL));
}

}  // namespace
}  // namespace ember
