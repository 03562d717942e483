// What the shared-memory segments of a plan database hold, for tools (`ember-plans shm ls`,
// docs/ember-plans.md): one SharedSegmentInfo per segment that SharedSegment::NamesFor finds.
//
// Inspection creates, changes and removes nothing, and takes no lock. Each segment's fixed part
// (header, buckets, claims) is read through a read-only mapping, so a segment of another user,
// or one that fails its checks, is still described, with the reason. The distinct plan keys
// come from SharedPlanTier::ListKeys (the view gc protects), which maps the segment read-write:
// it is asked only for a usable segment that the current user owns.
//
// The numbers are a snapshot of a segment that live workers may be changing: each field is
// read once, not all of them at one instant.
//
// Threading: any thread; nothing is shared between calls.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/status.h"

namespace ember {

struct SharedSegmentInfo {
  std::string name;  // the object's name in /dev/shm
  // The environment (stable id, "env-…") among those given whose SharedSegment::NameFor is
  // `name`; nullopt when none is.
  std::optional<std::string> environment;

  // From fstat (stat of /dev/shm/<name> when it cannot be opened).
  uint64_t bytes = 0;
  uid_t owner_uid = 0;
  mode_t mode = 0;  // permission bits

  // "ready", "broken", "initializing" (the header's state word); "untrusted": another user owns
  // or could write it, so the engine refuses it (Note [Shared segment trust]); or "unusable":
  // it fails another check that SharedSegment::Open would refuse or recreate it for. `problem`
  // says which.
  std::string state;
  std::string problem;  // empty unless state is "untrusted" or "unusable"

  // Header fields: nullopt when the header cannot be read or is not a segment of this layout.
  std::optional<uint32_t> layout_version;  // set whenever the magic number matches
  std::optional<uint64_t> used_bytes;      // min(allocator top, bytes) - data offset
  std::optional<uint64_t> entries;         // entries linked
  std::optional<uint64_t> generation;
  std::optional<uint64_t> publish_skipped;  // > 0: the segment filled up (it is incomplete)
  std::optional<int64_t> created_ms;        // Unix ms
  std::optional<uint32_t> creator_pid;
  // Claim slots whose owner is set, not expired and alive (ProcessTokenAlive).
  std::optional<uint32_t> live_claims;
  // Distinct plan keys (SharedPlanTier::ListKeys): only for a ready segment of a known
  // environment that the current user owns.
  std::optional<uint64_t> plan_keys;
};

// Describes every segment of `database_path` (any spelling of its path), in name order.
// `environments` are the stable ids of the database's environments (environments.fingerprint),
// matched against the names; `allow_shared_writable` judges trust as the engine would with
// that setting. Unavailable when there is no /dev/shm; a segment that vanishes while it is
// inspected is left out.
Status InspectSharedSegments(const std::string& database_path,
                             const std::vector<std::string>& environments,
                             std::vector<SharedSegmentInfo>* out,
                             bool allow_shared_writable = false);

}  // namespace ember
