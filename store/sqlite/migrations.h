// The migration runner: brings a plan database to the newest schema this binary knows, one
// numbered migration at a time (migrations/README.md has the rules).
//
// Each migration runs in its own BEGIN IMMEDIATE transaction together with the row that records
// it in schema_migrations, so a migration is applied and recorded, or neither. The runner reads
// the recorded version again inside each transaction: two processes upgrading one file at the
// same time apply every migration once. A database whose recorded version is above
// LatestSchemaVersion() is never migrated; PlanDatabase opens it read-only.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/status.h"
#include "store/repository/migration.h"
#include "store/sqlite/sqlite_database.h"

namespace ember {

// The migrations compiled into this binary from migrations/*.sql, in version order (generated
// by cmake/EmbedMigrations.cmake).
std::span<const Migration> EmbeddedMigrations();

// The version of the newest embedded migration.
int LatestSchemaVersion();

// What a database records: its applied migrations, in version order.
struct RecordedMigration {
  int version = 0;
  std::string name;
};

// The migrations recorded in `db`; empty when it has no schema_migrations table.
Status ReadRecordedMigrations(SqliteDatabase& db, std::vector<RecordedMigration>* out);

// Applies every migration of `migrations` whose version is not recorded yet, in order, each in
// its own transaction. Fails (changing nothing further) when a recorded migration's name differs
// from this binary's, or when the database is newer than `migrations`. *applied gets the number
// of migrations this call applied. Migrations run with foreign-key enforcement off (so that one
// may rebuild a table, as 0004 does) and each is rolled back when it leaves a row whose foreign
// key points nowhere (PRAGMA foreign_key_check).
// REQUIRES: `db` is writable and not inside a transaction.
Status ApplyMigrations(SqliteDatabase& db, std::span<const Migration> migrations, int* applied);

}  // namespace ember
