// The commit counter: every write transaction of ember's that changes rows adds one to the
// header's user_version, so that each commit rewrites page 1. Note [Write-ahead log binding]
// (wal_companions.h) uses it to tell whether a stale write-ahead log was written
// for the file beside it.
#pragma once

#include <cstdint>

#include "engine/core/status.h"
#include "store/sqlite/sqlite_database.h"

namespace ember {

// The counter wraps within the positive range of SQLite's signed 32-bit user_version.
inline constexpr uint32_t kCommitCounterMask = 0x7fffffff;

// Inside a write transaction: adds one to the header's user_version, so the commit writes
// page 1 into the log.
Status BumpCommitCounter(SqliteDatabase& db);

}  // namespace ember
