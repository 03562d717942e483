#include "store/sqlite/sqlite_error.h"

#include <sqlite3.h>

#include <fmt/format.h>

#include <string>

namespace ember {

bool IsSqliteBusy(int rc) {
  const int primary = rc & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

Status SqliteError(sqlite3* db, int rc, std::string_view path, std::string_view what) {
  const int primary = rc & 0xff;
  // sqlite3_errmsg describes the most recent failure on `db`; it is only ours when it matches.
  std::string detail = sqlite3_errstr(rc);
  if (db != nullptr && (sqlite3_extended_errcode(db) & 0xff) == primary) {
    detail = sqlite3_errmsg(db);
  }
  switch (primary) {
    case SQLITE_FULL:
      return Status::ResourceExhausted(fmt::format(
          "plan database {}: disk full or size limit reached while {} ({}); the transaction was "
          "rolled back, data committed before it is intact",
          path, what, detail));
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Unavailable(fmt::format(
          "plan database {} is locked by another connection while {} ({}); gave up after the "
          "busy timeout and retries",
          path, what, detail));
    case SQLITE_READONLY:
      return Status::Unavailable(
          fmt::format("plan database {} is read-only while {} ({})", path, what, detail));
    case SQLITE_NOTADB:
      return Status::Corruption(fmt::format(
          "{} is not a SQLite database, or is encrypted ({}) while {}; ember does not modify it: "
          "move it away or configure another plan database path",
          path, detail, what));
    case SQLITE_CORRUPT:
      return Status::Corruption(fmt::format(
          "plan database {} is corrupt ({}) while {}; run `PRAGMA integrity_check`, or move the "
          "file away to start a new one",
          path, detail, what));
    case SQLITE_CONSTRAINT:
      return Status::InvalidArgument(
          fmt::format("plan database {}: constraint failed while {} ({})", path, what, detail));
    case SQLITE_NOMEM:
      return Status::ResourceExhausted(
          fmt::format("plan database {}: out of memory while {} ({})", path, what, detail));
    case SQLITE_ERROR:
      if (detail.starts_with("no such table") || detail.starts_with("no such column")) {
        return Status::Corruption(fmt::format(
            "plan database {} is missing part of its schema while {} ({}); move the file away "
            "to start a new one",
            path, what, detail));
      }
      break;
    default: break;
  }
  return Status::IoError(
      fmt::format("plan database {}: {} failed: {} (SQLite code {})", path, what, detail, rc));
}

}  // namespace ember
