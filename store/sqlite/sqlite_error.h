// SqliteError: turns a SQLite result code into a Status a user can act on.
//
// Note [SQLite errors]: the store never throws and never aborts on a database problem; every
// failing SQLite call becomes a Status that names the file, what the store was doing, and what
// SQLite said. The codes the engine reacts to:
//   SQLITE_FULL            -> ResourceExhausted  (disk full, or the size limit was reached)
//   SQLITE_BUSY / _LOCKED  -> Unavailable        (another connection kept the lock too long)
//   SQLITE_READONLY        -> Unavailable        (the file or this connection is read-only)
//   SQLITE_NOTADB          -> Corruption         (the file is not a SQLite database)
//   SQLITE_CORRUPT         -> Corruption
//   "no such table/column" -> Corruption         (part of the schema is missing)
//   SQLITE_CONSTRAINT      -> InvalidArgument    (e.g. a trigger for a plan that does not exist)
//   SQLITE_NOMEM           -> ResourceExhausted
//   anything else          -> IoError
// Callers that need the exact code (to retry on busy) read SqliteDatabase::last_error_code().
#pragma once

#include <string_view>

#include "engine/core/status.h"

struct sqlite3;

namespace ember {

// The Status for result code `rc` (primary or extended) returned by a call on `db` (may be null:
// then SQLite's generic text for `rc` is used) while doing `what` on the database at `path`.
// REQUIRES: rc is an error code (not SQLITE_OK, SQLITE_ROW or SQLITE_DONE).
Status SqliteError(sqlite3* db, int rc, std::string_view path, std::string_view what);

// Whether `rc` (primary or extended) means another connection holds a lock we need.
bool IsSqliteBusy(int rc);

}  // namespace ember
