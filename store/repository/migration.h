// One numbered migration compiled into the binary from migrations/ (cmake/EmbedMigrations.cmake
// generates the lists): each database's set of them, version for version (migrations/README.md),
// is EmbeddedMigrations() for a SQLite file (store/sqlite/migrations.h) and
// EmbeddedPostgresMigrations() for a server (store/postgres/pg_migrations.h).
#pragma once

#include <string_view>

namespace ember {

struct Migration {
  int version = 0;        // NNNN of the file name; 1, 2, ... without gaps.
  std::string_view name;  // The rest of the file name, without ".sql".
  std::string_view sql;   // The file's contents.
};

}  // namespace ember
