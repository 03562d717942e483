// PlanRepository::Open: the one place that knows which implementation serves a location. A
// libpq connection URI names a PostgreSQL server; anything else is a SQLite file.
#include "engine/core/plan_db_location.h"
#include "store/postgres/postgres_plan_repository.h"
#include "store/repository/plan_repository.h"
#include "store/sqlite/sqlite_plan_repository.h"

namespace ember {

Status PlanRepository::Open(const PlanDbOptions& options, std::unique_ptr<PlanRepository>* out) {
  out->reset();
  if (IsPostgresUri(options.path)) {
    std::unique_ptr<PostgresPlanRepository> server;
    if (Status s = PostgresPlanRepository::Open(options, &server); !s.ok()) return s;
    *out = std::move(server);
    return Status::Ok();
  }
  std::unique_ptr<SqlitePlanRepository> sqlite;
  if (Status s = SqlitePlanRepository::Open(options, &sqlite); !s.ok()) return s;
  *out = std::move(sqlite);
  return Status::Ok();
}

}  // namespace ember
