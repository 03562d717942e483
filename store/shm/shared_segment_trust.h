// Who may have written a shared plan segment, and whether the engine may use it (SharedSegment
// and the tools' inspection, shared_segment_info.h). Plain POSIX; callable from any thread.
//
// Note [Shared segment trust]: a segment feeds plans straight into the engine, past SQLite and
// its row checks, and its entry checksum (XXH3) is no secret: whoever can write the segment
// decides what the engine computes. So a segment gets the database's trust rule (Note [Plan
// database trust], open_options.h), checked on every open of an existing object with fstat of
// the descriptor that is then mapped (no window in which the name can be swapped):
//   * its owner must be this user, root, or the plan database's owner (the segment is created
//     with the database's owner and mode when that user runs the engine);
//   * the group and others must not be able to write it, unless `allow_shared_writable` is set
//     ([store] allow_shared_writable: every member of the group is then trusted like the
//     program itself).
// The lock object beside it (<name>.lock) is held while a segment is created or recreated, and
// is checked the same way: its owner could remove it under a holder, and two processes would
// then create the segment at once. A refused segment is never used, removed or written: the
// engine reads and writes SQLite alone and says so at the default log level. The fix is to
// remove the object, not to chmod it: a process that opened it while it was writable keeps
// its write access.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <string>
#include <string_view>

#include "engine/core/status.h"

namespace ember {

// The mode a new segment (and its lock object) of the database at `database_path` is created
// with: the database's read/write bits, 0600 when it cannot be stat'ed. *database_owner gets
// the database's owner (this user when it cannot be stat'ed).
mode_t SegmentModeFor(const std::string& database_path, uid_t* database_owner);

// Why the object whose fstat is `st` must not be used, or empty when it may: "it is owned by
// uid 65534" or "it is writable by group and others (mode 0666)" (short enough for a line of
// `shm ls`; CheckTrustedSegment says more).
std::string SegmentDistrust(const struct stat& st, uid_t database_owner,
                            bool allow_shared_writable);

enum class SegmentObject { kSegment, kLock };

// OK when SegmentDistrust is empty; otherwise InvalidArgument saying which object (`name`, its
// name in /dev/shm), why, what another user could do with it, and the fix.
Status CheckTrustedSegment(SegmentObject kind, std::string_view name, const struct stat& st,
                           uid_t database_owner, bool allow_shared_writable);

}  // namespace ember
