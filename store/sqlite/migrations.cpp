#include "store/sqlite/migrations.h"

#include <fmt/format.h>

#include <string>

#include "engine/core/clock.h"
#include "store/sqlite/sqlite_statement.h"
#include "store/sqlite/sqlite_transaction.h"

namespace ember {

int LatestSchemaVersion() { return EmbeddedMigrations().back().version; }

namespace {

Status HasMigrationsTable(SqliteDatabase& db, bool* has) {
  SqliteStatement stmt;
  if (Status s = db.Prepare(
          "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
          "looking for schema_migrations", &stmt);
      !s.ok()) {
    return s;
  }
  return stmt.Step(has);
}

// Checks `recorded` against this binary's migrations: same names, no version it does not know.
Status CompareRecorded(const SqliteDatabase& db, const std::vector<RecordedMigration>& recorded,
                       std::span<const Migration> migrations) {
  for (const RecordedMigration& r : recorded) {
    if (r.version < 1) {
      return Status::Corruption(fmt::format("plan database {} records a migration with version {}",
                                            db.path(), r.version));
    }
    if (r.version > static_cast<int>(migrations.size())) {
      return Status::Unavailable(fmt::format(
          "plan database {} has schema version {}, newer than this binary's {}; it is not "
          "migrated",
          db.path(), recorded.back().version, migrations.size()));
    }
    const Migration& mine = migrations[static_cast<size_t>(r.version - 1)];
    if (r.name != mine.name) {
      return Status::Corruption(fmt::format(
          "plan database {} records migration {} as '{}', but this binary's migration {} is "
          "'{}'; it was made by an incompatible build",
          db.path(), r.version, r.name, mine.version, mine.name));
    }
  }
  return Status::Ok();
}

// Fails the migration when it left a row whose foreign key points nowhere (it runs with
// enforcement off: ForeignKeysOff).
Status CheckForeignKeys(SqliteDatabase& db, std::string_view what) {
  SqliteStatement check;
  if (Status s = db.Prepare("PRAGMA foreign_key_check", what, &check); !s.ok()) return s;
  bool broken = false;
  if (Status s = check.Step(&broken); !s.ok()) return s;
  if (!broken) return Status::Ok();
  return Status::Corruption(fmt::format(
      "plan database {}: {} left a row of table {} whose reference to {} points nowhere; "
      "rolled back",
      db.path(), what, check.ColumnText(0), check.ColumnText(2)));
}

// Migrations run with foreign-key enforcement off (SQLite's recipe for rebuilding a table:
// dropping the old one must not cascade into its children), restored when this goes. The
// pragma is a no-op inside a transaction, so it is set around them.
class ForeignKeysOff {
 public:
  explicit ForeignKeysOff(SqliteDatabase& db) : db_(db) {
    std::string on;
    if (db_.QueryText("PRAGMA foreign_keys", "reading foreign_keys", &on).ok() && on == "1") {
      restore_ = db_.Exec("PRAGMA foreign_keys = OFF", "disabling foreign keys to migrate").ok();
    }
  }
  ~ForeignKeysOff() {
    if (restore_) (void)db_.Exec("PRAGMA foreign_keys = ON", "enabling foreign keys again");
  }
  ForeignKeysOff(const ForeignKeysOff&) = delete;
  ForeignKeysOff& operator=(const ForeignKeysOff&) = delete;

 private:
  SqliteDatabase& db_;
  bool restore_ = false;
};

}  // namespace

Status ReadRecordedMigrations(SqliteDatabase& db, std::vector<RecordedMigration>* out) {
  out->clear();
  bool has_table = false;
  if (Status s = HasMigrationsTable(db, &has_table); !s.ok() || !has_table) return s;
  SqliteStatement stmt;
  if (Status s = db.Prepare("SELECT version, name FROM schema_migrations ORDER BY version",
                            "reading schema_migrations", &stmt);
      !s.ok()) {
    return s;
  }
  for (;;) {
    bool row = false;
    if (Status s = stmt.Step(&row); !s.ok()) return s;
    if (!row) break;
    out->push_back({static_cast<int>(stmt.ColumnInt64(0)), stmt.ColumnText(1)});
  }
  return Status::Ok();
}

Status ApplyMigrations(SqliteDatabase& db, std::span<const Migration> migrations, int* applied) {
  *applied = 0;
  const ForeignKeysOff foreign_keys_off(db);
  for (const Migration& migration : migrations) {
    bool ran = false;
    const std::string what =
        fmt::format("applying migration {:04}_{}", migration.version, migration.name);
    Status s = RunTransaction(db, TransactionKind::kWrite, what, [&]() -> Status {
      ran = false;
      std::vector<RecordedMigration> recorded;
      if (Status r = ReadRecordedMigrations(db, &recorded); !r.ok()) return r;
      if (Status r = CompareRecorded(db, recorded, migrations); !r.ok()) return r;
      for (const RecordedMigration& r : recorded) {
        if (r.version == migration.version) return Status::Ok();  // Another process was first.
      }
      if (Status r = db.Exec(migration.sql, what); !r.ok()) return r;
      if (Status r = CheckForeignKeys(db, what); !r.ok()) return r;
      SqliteStatement record;
      if (Status r = db.Prepare(
              "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?1, ?2, ?3)",
              "recording a migration", &record);
          !r.ok()) {
        return r;
      }
      record.BindInt64(1, migration.version);
      record.BindText(2, migration.name);
      record.BindInt64(3, NowUnixMillis());
      if (Status r = record.Run(); !r.ok()) return r;
      ran = true;
      return Status::Ok();
    });
    if (!s.ok()) return s;
    if (ran) ++*applied;
  }
  return Status::Ok();
}

}  // namespace ember
