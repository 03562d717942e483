#include "store/admin/plan_maintenance.h"

#include <fmt/format.h>

#include <string>

#include "store/sqlite/sqlite_transaction.h"

namespace ember {

namespace {

Status FileBytes(SqliteDatabase& db, int64_t* out) {
  std::string pages;
  std::string size;
  if (Status s = db.QueryText("PRAGMA page_count", "reading the page count", &pages); !s.ok()) {
    return s;
  }
  if (Status s = db.QueryText("PRAGMA page_size", "reading the page size", &size); !s.ok()) {
    return s;
  }
  *out = std::stoll(pages) * std::stoll(size);
  return Status::Ok();
}

}  // namespace

Status ClearQuarantined(PlanRepository& repo, int64_t* deleted) {
  if (Status s = repo.CheckWritable("clearing quarantined plans"); !s.ok()) return s;
  SqlSession& sql = repo.sql();
  return sql.WriteTransaction("clearing quarantined plans", [&] {
    return sql.Exec("DELETE FROM plans WHERE status = 'quarantined'", {},
                    "clearing quarantined plans", deleted);
  });
}

Status Vacuum(PlanDatabase& database, int64_t* bytes_before, int64_t* bytes_after) {
  if (Status s = database.CheckWritable("vacuuming"); !s.ok()) return s;
  SqliteDatabase& db = database.sqlite();
  if (Status s = FileBytes(db, bytes_before); !s.ok()) return s;
  // VACUUM cannot run inside a transaction.
  if (Status s = RunWithBusyRetry(db, "vacuuming", [&] { return db.Exec("VACUUM", "vacuuming"); });
      !s.ok()) {
    return s;
  }
  std::string checkpoint;
  if (Status s = db.QueryText("PRAGMA wal_checkpoint(TRUNCATE)", "checkpointing", &checkpoint);
      !s.ok()) {
    return s;
  }
  return FileBytes(db, bytes_after);
}

}  // namespace ember
