// The plan repository's semantic tests run on every implementation (issue 19): a fixture
// parameterized by backend. "sqlite" is a fresh file in a scratch directory; "postgresql" is a
// fresh database on one real server per test binary (tests/common/postgres_server.h), started
// on first use and stopped at exit. Where the server binaries are missing, the PostgreSQL
// cases report skipped with the reason.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>

#include "store/postgres/pg_connection.h"
#include "store/repository/plan_repository.h"
#include "store/sqlite/sqlite_database.h"
#include "tests/common/postgres_server.h"
#include "tests/common/repository_fixture.h"
#include "tests/common/temp_dir.h"

namespace ember::test {

// The server the PostgreSQL cases share; null (with the reason) when none can start.
inline PostgresServer* SharedPostgres(std::string* why_not) {
  static std::string reason;
  static std::unique_ptr<PostgresServer> server = PostgresServer::Start(&reason);
  if (why_not != nullptr) *why_not = reason;
  return server.get();
}

// A new, empty database on the shared server; its URI.
inline std::string FreshPostgresDatabase(PostgresServer& server) {
  static std::atomic<int> next{0};
  const std::string name = fmt::format("t{}_{}", getpid(), next++);
  bool ok = false;
  const std::string out = server.Psql("CREATE DATABASE " + name, &ok);
  EXPECT_TRUE(ok) << out;
  std::string uri = server.uri();
  return uri.substr(0, uri.rfind('/') + 1) + name;
}

class BackendFixture : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (postgres()) {
      std::string why;
      server_ = SharedPostgres(&why);
      if (server_ == nullptr) GTEST_SKIP() << "no PostgreSQL server: " << why;
      location_ = FreshPostgresDatabase(*server_);
    } else {
      location_ = dir_.File("plans.db");
    }
    Reopen();
  }

  bool postgres() const { return GetParam() == "postgresql"; }

  // Closes repo_ and opens the database again, as the next process (or host) would.
  void Reopen() {
    repo_.reset();
    repo_ = Open();
    ASSERT_NE(repo_, nullptr);
    ASSERT_TRUE(repo_->EnsureEnvironment(SampleEnvironment(), &env_).ok());
  }

  std::unique_ptr<PlanRepository> Open(bool read_only = false) const {
    PlanDbOptions options = OptionsFor(location_);
    options.read_only = read_only;
    std::unique_ptr<PlanRepository> repo;
    const Status s = PlanRepository::Open(options, &repo);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return repo;
  }

  // One value of a query, as text: write portable SQL and CAST(... AS TEXT) what is not text.
  std::string Raw(const std::string& sql) const {
    if (postgres()) {
      std::unique_ptr<pg::Connection> conn;
      Status s = pg::Connection::Open(location_, &conn);
      EXPECT_TRUE(s.ok()) << s.ToString();
      if (!s.ok()) return "";
      pg::Result r;
      s = conn->Exec(sql, "a test query", &r);
      EXPECT_TRUE(s.ok()) << s.ToString();
      return s.ok() && r.rows() > 0 ? r.Text(0, 0) : "";
    }
    SqliteDatabase db;
    Status s = SqliteDatabase::Open(location_, SqliteDatabase::Mode::kReadWrite,
                                    std::chrono::milliseconds(5000), &db);
    EXPECT_TRUE(s.ok()) << s.ToString();
    std::string text;
    s = db.QueryText(sql, "a test query", &text);
    EXPECT_TRUE(s.ok()) << s.ToString() << " " << sql;
    return text;
  }
  // A statement without a result (tampering with rows, as a damaged disk or a bad host would).
  void RawExec(const std::string& sql) const {
    Status s;
    if (postgres()) {
      std::unique_ptr<pg::Connection> conn;
      s = pg::Connection::Open(location_, &conn);
      if (s.ok()) s = conn->Exec(sql, "a test statement");
    } else {
      SqliteDatabase db;
      s = SqliteDatabase::Open(location_, SqliteDatabase::Mode::kReadWrite,
                               std::chrono::milliseconds(5000), &db);
      if (s.ok()) s = db.Exec(sql, "a test statement");
    }
    EXPECT_TRUE(s.ok()) << s.ToString() << " " << sql;
  }

  TempDir dir_;
  PostgresServer* server_ = nullptr;
  std::string location_;
  std::unique_ptr<PlanRepository> repo_;
  EnvironmentRowId env_ = 0;
};

// A BackendFixture with the workload "serve" created in its environment (workload_).
class WorkloadBackendFixture : public BackendFixture {
 protected:
  void SetUp() override {
    BackendFixture::SetUp();
    if (IsSkipped()) return;
    WorkloadRow row;
    ASSERT_TRUE(repo_->GetOrCreateWorkload(env_, "serve", &row).ok());
    workload_ = row.id;
  }

  WorkloadRowId workload_ = 0;
};

inline std::string BackendName(const testing::TestParamInfo<std::string>& info) {
  return info.param;
}

#define EMBER_ON_EVERY_BACKEND(Suite)                                                \
  INSTANTIATE_TEST_SUITE_P(Backends, Suite, testing::Values("sqlite", "postgresql"), \
                           ember::test::BackendName)

}  // namespace ember::test
