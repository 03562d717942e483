// The two migration folders describe one schema: migrations/NNNN_*.sql gives a SQLite file what
// migrations/postgres/NNNN_*.sql gives a server (migrations/README.md), and the repository's
// SQL, written once (store/repository/sql_plan_repository.h), relies on it. After every
// version, both have the same tables with the same columns, each of the same kind (integer,
// real, text, bytes) and nullability. What only one side has is listed here, with its reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "store/postgres/pg_connection.h"
#include "store/postgres/pg_migrations.h"
#include "store/sqlite/migrations.h"
#include "store/sqlite/sqlite_database.h"
#include "store/sqlite/sqlite_statement.h"
#include "tests/common/temp_dir.h"
#include "tests/store/repository_backends.h"

namespace ember {
namespace {

// A column's kind and whether it may be NULL.
struct Column {
  std::string kind;
  bool not_null = false;

  bool operator==(const Column&) const = default;
};

// (table, column) -> Column.
using Schema = std::map<std::pair<std::string, std::string>, Column>;

void PrintTo(const Column& c, std::ostream* os) {
  *os << c.kind << (c.not_null ? " NOT NULL" : "");
}

// The table a server has and a file does not: a file says it is ember's in its header
// (PRAGMA application_id), a server in this one-row table.
constexpr char kServerOnlyTable[] = "ember_application";

std::string SqliteKind(const std::string& declared) {
  if (declared == "INTEGER") return "integer";
  if (declared == "REAL") return "real";
  if (declared == "TEXT") return "text";
  if (declared == "BLOB") return "bytes";
  return "sqlite " + declared;
}

std::string PostgresKind(const std::string& type) {
  if (type == "bigint") return "integer";
  if (type == "double precision") return "real";
  if (type == "text") return "text";
  if (type == "bytea") return "bytes";
  return "postgresql " + type;
}

// A new file with the first `versions` SQLite migrations applied.
Schema SqliteSchema(size_t versions) {
  test::TempDir dir;
  const std::string path = dir.File("plans.db");
  std::ofstream(path).close();  // an empty file is an empty database
  SqliteDatabase db;
  Status s = SqliteDatabase::Open(path, SqliteDatabase::Mode::kReadWrite,
                                  std::chrono::milliseconds(1000), &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  int applied = 0;
  s = ApplyMigrations(db, EmbeddedMigrations().first(versions), &applied);
  EXPECT_TRUE(s.ok()) << s.ToString();
  SqliteStatement columns;
  s = db.Prepare(
      "SELECT m.name, c.name, c.type, c.\"notnull\" OR c.pk = 1 FROM sqlite_master m, "
      "pragma_table_info(m.name) c WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'",
      "reading the schema", &columns);
  EXPECT_TRUE(s.ok()) << s.ToString();
  Schema out;
  for (bool row = false; columns.Step(&row).ok() && row;) {
    out[{columns.ColumnText(0), columns.ColumnText(1)}] = {SqliteKind(columns.ColumnText(2)),
                                                           columns.ColumnInt64(3) != 0};
  }
  return out;
}

// A fresh database on `server` with the first `versions` PostgreSQL migrations applied.
Schema PostgresSchema(test::PostgresServer& server, size_t versions) {
  std::unique_ptr<pg::Connection> conn;
  Status s = pg::Connection::Open(test::FreshPostgresDatabase(server), &conn);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return {};
  for (const Migration& m : EmbeddedPostgresMigrations().first(versions)) {
    s = conn->ExecScript(m.sql, "applying a migration");
    EXPECT_TRUE(s.ok()) << m.version << " " << m.name << ": " << s.ToString();
  }
  pg::Result r;
  s = conn->Exec(
      "SELECT CAST(table_name AS TEXT), CAST(column_name AS TEXT), CAST(data_type AS TEXT), "
      "CAST(CASE WHEN is_nullable = 'NO' THEN 1 ELSE 0 END AS BIGINT) "
      "FROM information_schema.columns WHERE table_schema = current_schema()",
      "reading the schema", &r);
  EXPECT_TRUE(s.ok()) << s.ToString();
  Schema out;
  for (int row = 0; row < r.rows(); ++row) {
    if (r.Text(row, 0) == kServerOnlyTable) continue;
    out[{r.Text(row, 0), r.Text(row, 1)}] = {PostgresKind(r.Text(row, 2)), r.Int64(row, 3) != 0};
  }
  EXPECT_TRUE(r.CheckTypes().ok());
  return out;
}

TEST(MigrationParity, BothFoldersHaveTheSameMigrations) {
  const auto sqlite = EmbeddedMigrations();
  const auto postgres = EmbeddedPostgresMigrations();
  ASSERT_EQ(sqlite.size(), postgres.size());
  for (size_t i = 0; i < sqlite.size(); ++i) {
    EXPECT_EQ(sqlite[i].version, postgres[i].version);
    EXPECT_EQ(sqlite[i].name, postgres[i].name);
  }
}

TEST(MigrationParity, EveryVersionGivesBothDatabasesTheSameTablesAndColumns) {
  std::string why;
  test::PostgresServer* server = test::SharedPostgres(&why);
  if (server == nullptr) GTEST_SKIP() << "no PostgreSQL server: " << why;
  const size_t versions =
      std::min(EmbeddedMigrations().size(), EmbeddedPostgresMigrations().size());
  for (size_t v = 1; v <= versions; ++v) {
    SCOPED_TRACE("schema version " + std::to_string(v));
    const Schema sqlite = SqliteSchema(v);
    ASSERT_FALSE(sqlite.empty());
    EXPECT_EQ(sqlite, PostgresSchema(*server, v));
  }
}

}  // namespace
}  // namespace ember
