// Maintenance writes on a whole plan database, for `ember-plans quarantine clear` and
// `vacuum`. Each checks that the database is writable first (PlanDatabase::CheckWritable) and
// returns a Status for every database problem.
//
// Threading: one thread at a time per database.
#pragma once

#include <cstdint>

#include "engine/core/status.h"
#include "store/repository/plan_repository.h"
#include "store/sqlite/plan_database.h"

namespace ember {

// Deletes every quarantined plan (its triggers and plan usage go with it, ON DELETE CASCADE);
// *deleted gets how many. A later publication of the same ops stores a fresh row. On either
// database (a file or a server).
Status ClearQuarantined(PlanRepository& db, int64_t* deleted);

// VACUUM: rewrites the file without its free pages, then checkpoints the WAL into it.
// *bytes_before and *bytes_after get the main file's size (page_count × page_size). Waits for
// other connections' transactions (busy timeout); fails with Unavailable when they hold on.
Status Vacuum(PlanDatabase& db, int64_t* bytes_before, int64_t* bytes_after);

}  // namespace ember
