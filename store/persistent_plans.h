// PersistentPlans: the plan database behind a device's plan store (engine/stream/plan_backing.h):
// SQLite as the durable tier, read on the op path the first time a first op is seen, written
// behind by a PlanWriter (Note [Write-behind]). Plans are scoped to an environment (Note
// [Environment fingerprint]) and exploration budgets to a workload.
//
// Every loaded row is decoded and validated (DecodeOperations, DecodeBlockOptimization,
// ValidatePlan) before it joins the store; a row that fails is quarantined and counted, and the
// segment explores or runs unfused instead. Nothing the database does stops the program: a
// database that cannot be opened leaves the engine memory-only with one message (Open), and a
// failure later makes the writer stop with one message.
//
// Threading: the PlanBacking methods run under the device server's lock; the writer has its
// own thread and its own connection.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/stream/plan_backing.h"
#include "store/environment_fingerprint.h"
#include "store/plan_repository.h"
#include "store/plan_writer.h"

namespace ember {

struct PersistentPlansOptions {
  std::string path;
  EnvironmentFingerprint environment;
  std::string workload;
  // The workload's cap when its row sets none ([fusion.search] max_explorations).
  std::optional<size_t> max_explorations;
  bool allow_shared_writable = false;
};

class PersistentPlans final : public PlanBacking {
 public:
  static Status Open(const PersistentPlansOptions& options, std::unique_ptr<PersistentPlans>* out);
  ~PersistentPlans() override;

  void Load(const OperationIr& first, const AddPlan& add) override;
  void OnPlanAdded(PlanId id, const ExecutionPlan& plan) override;
  void OnTriggerAdded(PlanId id, const ExecutionTrigger& trigger) override;
  void OnHit(PlanId id) override;
  bool ExplorationAllowed() override;
  void OnExploration() override;
  void OnUnfusedRun() override;
  void Flush() override;
  BackingCounters counters() const override;

 private:
  PersistentPlans() = default;

  std::unique_ptr<PlanRepository> reader_;
  std::unique_ptr<PlanWriter> writer_;
  EnvironmentRowId environment_ = 0;
  WorkloadRowId workload_ = 0;
  int64_t explorations_at_open_ = 0;
  std::optional<int64_t> cap_;
  int64_t explored_here_ = 0;
  bool reads_failed_ = false;
  std::atomic<uint64_t> loaded_{0};
  std::atomic<uint64_t> quarantined_{0};
  std::atomic<uint64_t> load_ns_{0};
  // Where each plan of the in-memory store came from (indexed by PlanId; plans this process
  // explored are kExplored), for the cache-hit counters by tier.
  enum class Tier : uint8_t { kExplored, kShm, kSqlite };
  std::vector<Tier> tier_of_plan_;
  void SetTier(PlanId id, Tier tier);
  std::atomic<uint64_t> hits_from_shm_{0};
  std::atomic<uint64_t> hits_from_sqlite_{0};
};

// The executable's file name (the default workload name, EMBER_WORKLOAD unset).
std::string ExecutableName();

}  // namespace ember
