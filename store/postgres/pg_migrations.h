// The PostgreSQL migrations compiled into this binary from migrations/postgres/*.sql (generated
// by cmake/EmbedMigrations.cmake), in version order, and how a server is brought up to date.
// The numbering follows the SQLite files (migrations/README.md): version N on a server is the
// schema of version N in a file.
#pragma once

#include <span>

#include "engine/core/status.h"
#include "store/postgres/pg_connection.h"
#include "store/repository/migration.h"

namespace ember {
// Generated beside store/sqlite's EmbeddedMigrations (store/sqlite/migrations.h), in namespace
// ember.
std::span<const Migration> EmbeddedPostgresMigrations();
}  // namespace ember

namespace ember::pg {

// Creates or upgrades ember's tables on `conn`'s database. Each migration runs in its own
// transaction, recorded in schema_migrations there; an advisory lock makes hosts that start
// together take turns, so each migration is applied once. *version gets the recorded version.
// A database with tables but no ember marker is refused (Corruption: a foreign database); one
// recorded above this binary's newest migration is left alone and *newer is set (the caller
// opens it read-only). With `read_only`, nothing is written and a database without ember's
// tables is NotFound.
Status MigratePostgres(Connection& conn, bool read_only, int* version, bool* newer);

}  // namespace ember::pg
