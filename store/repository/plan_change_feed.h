// PlanChangeFeed: what other connections commit to a plan database, as it happens — the way a
// database that many hosts share tells each one that a neighbour published (docs/PLAN_DATABASE.md,
// "New plans reach running hosts"). PlanRepository::OpenChangeFeed opens one where the database
// can push changes (PostgreSQL: LISTEN/NOTIFY); within one host the shared-memory tier does the
// same for SQLite, which cannot.
//
// A change only says where to look again: the plans are read through the repository as usual,
// so a change that is lost, repeated or late costs a read or a later refresh, never a wrong
// plan. When the feed's connection is lost, changes in between are lost too: the caller then
// reads everything it cares about again (PlanChangeListener does).
//
// Threading: Wait and Reconnect from one thread; Interrupt from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "engine/core/status.h"
#include "engine/ir/hash.h"
#include "store/repository/plan_rows.h"

namespace ember {

struct PlanChange {
  enum class Kind : uint8_t {
    kPlan,     // a plan was stored (or a quarantined one repaired)
    kTrigger,  // a stored plan gained triggers
  };
  Kind kind = Kind::kPlan;
  EnvironmentRowId environment = 0;
  uint64_t first_op_hash = 0;
  Hash128 plan_key;
  // Committed by a connection of this process (its own writer): nothing to read back.
  bool from_this_process = false;

  bool operator==(const PlanChange&) const = default;
};

class PlanChangeFeed {
 public:
  virtual ~PlanChangeFeed() = default;
  // Waits up to `timeout` for changes committed by any connection (this process's own writer
  // included) and appends them to *out; returns early when some arrived or Interrupt was
  // called. Unavailable once the connection is lost: Reconnect, then assume changes were missed.
  virtual Status Wait(std::chrono::milliseconds timeout, std::vector<PlanChange>* out) = 0;
  // A new connection that listens again.
  virtual Status Reconnect() = 0;
  // Makes a Wait in progress, or the next one, return at once. Thread-safe.
  virtual void Interrupt() = 0;
};

}  // namespace ember
