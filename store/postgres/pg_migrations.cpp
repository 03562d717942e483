#include "store/postgres/pg_migrations.h"

#include <fmt/format.h>

#include "engine/core/clock.h"

namespace ember::pg {
namespace {

// pg_advisory_xact_lock's key: 'EMBR' with a 'MIG' suffix; any constant no one else uses.
constexpr int64_t kMigrationLock = 0x454d4252'4d4947;

Status TableExists(Connection& conn, std::string_view table, bool* exists) {
  Result r;
  if (Status s = conn.Exec("SELECT to_regclass($1) IS NOT NULL", Params().Text(table),
                           "looking for ember's tables", &r);
      !s.ok()) {
    return s;
  }
  // A boolean comes back as one byte.
  *exists = r.rows() == 1 && r.Bytea(0, 0) == std::vector<uint8_t>{1};
  return Status::Ok();
}

Status RecordedVersion(Connection& conn, int* version) {
  Result r;
  if (Status s = conn.Exec("SELECT COALESCE(MAX(version), 0) FROM schema_migrations",
                           "reading the schema version", &r);
      !s.ok()) {
    return s;
  }
  *version = static_cast<int>(r.Int64(0, 0));
  return r.CheckTypes();
}

}  // namespace

Status MigratePostgres(Connection& conn, bool read_only, int* version, bool* newer) {
  *version = 0;
  *newer = false;
  const std::span<const Migration> migrations = ember::EmbeddedPostgresMigrations();
  const int latest = migrations.empty() ? 0 : migrations.back().version;
  auto inspect = [&]() -> Status {
    bool recorded = false, plans = false;
    if (Status s = TableExists(conn, "schema_migrations", &recorded); !s.ok()) return s;
    if (Status s = TableExists(conn, "plans", &plans); !s.ok()) return s;
    if (!recorded && plans) {
      return Status::Corruption(fmt::format(
          "plan database {}: the database has a table 'plans' but no schema_migrations: it is "
          "not an ember plan database (use another database or schema for ember)",
          conn.location()));
    }
    if (recorded) return RecordedVersion(conn, version);
    *version = 0;
    return Status::Ok();
  };
  if (read_only) {
    if (Status s = inspect(); !s.ok()) return s;
    if (*version == 0) {
      return Status::NotFound(
          fmt::format("plan database {} has no ember tables yet", conn.location()));
    }
    *newer = *version > latest;
    return Status::Ok();
  }
  for (const Migration& m : migrations) {
    bool applied = false;
    Status s = conn.Transaction("migrating the plan database", [&]() -> Status {
      applied = false;
      if (Status r = conn.Exec("SELECT pg_advisory_xact_lock($1)", Params().Int64(kMigrationLock),
                               "waiting for other hosts' migrations");
          !r.ok()) {
        return r;
      }
      if (Status r = inspect(); !r.ok()) return r;
      if (*version >= m.version) return Status::Ok();
      if (*version != m.version - 1) {
        return Status::Corruption(fmt::format("plan database {}: schema version {} before {}",
                                              conn.location(), *version, m.version));
      }
      if (Status r = conn.ExecScript(m.sql, fmt::format("migration {} ({})", m.version, m.name));
          !r.ok()) {
        return r;
      }
      if (Status r = conn.Exec(
              "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
              Params().Int64(m.version).Text(m.name).Int64(NowUnixMillis()),
              "recording a migration");
          !r.ok()) {
        return r;
      }
      applied = true;
      return Status::Ok();
    });
    if (!s.ok()) return s;
    if (applied) *version = m.version;
    if (*version > latest) break;
  }
  if (*version == 0) {
    if (Status s = inspect(); !s.ok()) return s;
  }
  *newer = *version > latest;
  return Status::Ok();
}

}  // namespace ember::pg
