// PersistentFacts: the plan database's DeviceFactStore (engine/runtime/device_facts.h), owned by
// PersistentPlans and handed to a backend that measures its device (PlanBacking::AttachFacts).
//
// Note [Device facts]
//   * A fact is what a backend measured about its device and would otherwise measure again in
//     every process: a short name and value (which matmul epilogue is faster for a shape
//     class), text the backend writes and parses itself. Facts are kept per environment (table
//     device_facts, migrations/0005_device_facts.sql), so another device, driver or library
//     version, which is another environment, never sees them. A fact only chooses between
//     paths that are all correct: a stored value can make a launch slower, never wrong
//     (docs/PLAN_DATABASE.md, "The trust model").
//   * Find answers from memory. All of the environment's facts are read in one query at the
//     first Find, not at open: a backend that measures nothing (the CPU's) never costs a read,
//     opening a device waits for nothing it may not need, and the first Find comes at the first
//     launch that needs a fact, when siblings have had the longest to store theirs.
//   * A name memory lacks is looked up in the shared segment (Note [Shared facts],
//     store/shm/shared_plan_tier.h: what a sibling on this host remembered, no database round
//     trip), then, once per name in the process's life, the environment's facts are read again
//     in one query (what other hosts, or siblings without the segment, stored since). So a
//     name costs at most one read beyond the first, whatever the number of launches; a name
//     nobody measured costs that read, then the backend measures and remembers it.
//   * Memory wins: a value read later never replaces one this process holds (it may have used
//     it already); the next process reads the newest value the database has (last writer wins).
//   * Remember puts the value in memory and the shared segment at once, and gives it to the
//     background writer (Note [Write-behind], store/repository/plan_writer.h): the op path
//     never waits for the database. A value equal to the one held writes nothing. A name or
//     value PlanRepository::CheckDeviceFact refuses (over DeviceFactStore's bounds, not UTF-8
//     text) is not remembered at all, said once at `basic`. On a database that cannot be
//     written (or whose writer stopped), facts stay in memory and the segment.
//   * A row whose checksum fails is skipped by the load (counted, said once at `basic`) and
//     never returned: the backend measures again and its new value replaces the row. A read
//     that fails is said once; Find goes on from memory and the segment.
//
// Threading: called under the device server's lock, one call at a time, like PersistentPlans.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "engine/runtime/device_facts.h"
#include "store/database_reader.h"
#include "store/repository/plan_writer.h"
#include "store/shared_tier_client.h"

namespace ember {

class PersistentFacts final : public DeviceFactStore {
 public:
  // Reads through `db` (its environment), shares through `shm`, writes through `writer`; all
  // three belong to the PersistentPlans that owns this store and outlive it.
  PersistentFacts(DatabaseReader& db, SharedTierClient& shm, PlanWriter& writer);

  std::optional<std::string> Find(std::string_view name) override;
  void Remember(std::string_view name, std::string_view value) override;

  // For tests and logs: the database reads made, and the damaged rows the last one skipped.
  uint64_t reads() const { return reads_; }
  size_t damaged() const { return damaged_; }

 private:
  // Reads every fact of the environment into memory (memory wins). False when no read
  // happened (the database is not read now).
  bool ReadAll();

  DatabaseReader& db_;
  SharedTierClient& shm_;
  PlanWriter& writer_;
  std::unordered_map<std::string, std::string> facts_;
  bool loaded_ = false;                     // the first read happened
  std::unordered_set<std::string> reread_;  // names that had their one read again
  uint64_t reads_ = 0;
  size_t damaged_ = 0;
  bool damaged_said_ = false;
  bool failure_said_ = false;
  bool refusal_said_ = false;
};

}  // namespace ember
