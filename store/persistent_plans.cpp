#include "store/persistent_plans.h"

#include <unistd.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "engine/core/log.h"
#include "engine/ir/hash.h"
#include "store/plan_codec.h"

namespace ember {
namespace {

TriggerRow EncodeTrigger(const ExecutionTrigger& trigger) {
  TriggerRow row{.kind = static_cast<int>(trigger.kind)};
  if (trigger.kind == ExecutionTrigger::Kind::kOnOperations) {
    row.ops_blob = EncodeOperations(trigger.operations);
  }
  return row;
}

Status DecodeTrigger(const TriggerRow& row, ExecutionTrigger* out) {
  switch (row.kind) {
    case static_cast<int>(ExecutionTrigger::Kind::kOnOperations): {
      std::vector<OperationIr> ops;
      if (Status s = DecodeOperations(row.ops_blob, &ops); !s.ok()) return s;
      *out = ExecutionTrigger::OnOperations(std::move(ops));
      return Status::Ok();
    }
    case static_cast<int>(ExecutionTrigger::Kind::kOnSync):
      *out = ExecutionTrigger::OnSync();
      return Status::Ok();
    case static_cast<int>(ExecutionTrigger::Kind::kAlways):
      *out = ExecutionTrigger::Always();
      return Status::Ok();
    default: return Status::Corruption(fmt::format("unknown trigger kind {}", row.kind));
  }
}

// A stored row back into an ExecutionPlan, checked as DecodePlan checks a whole blob.
Status DecodeRow(const StoredPlan& row, ExecutionPlan* out) {
  ExecutionPlan plan;
  if (Status s = DecodeOperations(row.ops_blob, &plan.operations); !s.ok()) return s;
  if (Status s = DecodeBlockOptimization(row.plan_blob, &plan.optimization); !s.ok()) return s;
  for (const TriggerRow& t : row.triggers) {
    ExecutionTrigger trigger;
    if (Status s = DecodeTrigger(t, &trigger); !s.ok()) return s;
    plan.triggers.push_back(std::move(trigger));
  }
  if (Status s = ValidatePlan(plan); !s.ok()) return s;
  *out = std::move(plan);
  return Status::Ok();
}

}  // namespace

std::string ExecutableName() {
  std::array<char, 4096> buffer{};
  const ssize_t n = readlink("/proc/self/exe", buffer.data(), buffer.size() - 1);
  if (n <= 0) return "ember";
  return std::filesystem::path(std::string(buffer.data(), static_cast<size_t>(n)))
      .filename()
      .string();
}

Status PersistentPlans::Open(const PersistentPlansOptions& options,
                             std::unique_ptr<PersistentPlans>* out) {
  std::unique_ptr<PersistentPlans> plans(new PersistentPlans());
  PlanDbOptions db{.path = options.path, .allow_shared_writable = options.allow_shared_writable};
  if (Status s = PlanRepository::Open(db, &plans->reader_); !s.ok()) return s;
  if (Status s = plans->reader_->EnsureEnvironment(options.environment, &plans->environment_);
      !s.ok()) {
    return s;
  }
  WorkloadRow workload;
  if (Status s = plans->reader_->GetOrCreateWorkload(plans->environment_, options.workload,
                                                     &workload);
      !s.ok()) {
    return s;
  }
  plans->workload_ = workload.id;
  plans->explorations_at_open_ = workload.explorations;
  plans->cap_ = workload.max_explorations;
  if (!plans->cap_ && options.max_explorations) {
    plans->cap_ = static_cast<int64_t>(*options.max_explorations);
  }
  std::unique_ptr<PlanRepository> writer_connection;
  if (Status s = PlanRepository::Open(db, &writer_connection); !s.ok()) return s;
  plans->writer_ = std::make_unique<PlanWriter>(std::move(writer_connection),
                                                plans->environment_, plans->workload_);
  *out = std::move(plans);
  return Status::Ok();
}

PersistentPlans::~PersistentPlans() = default;  // the writer applies what is queued

void PersistentPlans::Load(const OperationIr& first, const AddPlan& add) {
  // Stats::plan_load_ms: the whole body, every return included (the warm-start benchmark's
  // "time spent loading and validating the plan set").
  struct Timer {
    std::atomic<uint64_t>& total;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    ~Timer() {
      total.fetch_add(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                std::chrono::steady_clock::now() - start)
                                                .count()));
    }
  } timer{load_ns_};
  if (reads_failed_) return;
  const uint64_t hash = HashOp(first);
  LoadedPlans loaded;
  if (Status s = reader_->LoadPlansByFirstOp(environment_, hash, &loaded); !s.ok()) {
    reads_failed_ = true;
    LogFusion(LogLevel::kBasic, [&] {
      return fmt::format("[store] reading plans failed ({}); exploring instead from now on",
                         s.ToString());
    });
    return;
  }
  quarantined_.fetch_add(loaded.quarantined);
  for (const StoredPlan& row : loaded.plans) {
    ExecutionPlan plan;
    if (Status s = DecodeRow(row, &plan); !s.ok()) {
      quarantined_.fetch_add(1);
      LogFusion(LogLevel::kBasic, [&] {
        return fmt::format("[store] plan row {} is unusable ({}); quarantined", row.id,
                           s.ToString());
      });
      writer_->Quarantine(row.id, s.ToString());
      continue;
    }
    // Another first op with the same hash: not this one's plan.
    if (!(plan.operations.front() == first)) continue;
    const PlanId id = add(std::move(plan));
    writer_->Bind(id, row.id);
    SetTier(id, Tier::kSqlite);
    loaded_.fetch_add(1);
  }
}

void PersistentPlans::OnPlanAdded(PlanId id, const ExecutionPlan& plan) {
  PublishItem item;
  item.plan.first_op_hash = FirstOpHash(plan.operations);
  item.plan.plan_key = PlanKey(plan.operations);
  item.plan.ops_blob = EncodeOperations(plan.operations);
  item.plan.plan_blob = EncodeBlockOptimization(plan.optimization);
  item.plan.num_ops = static_cast<uint32_t>(plan.operations.size());
  for (const ExecutionTrigger& trigger : plan.triggers) {
    item.triggers.push_back(EncodeTrigger(trigger));
  }
  writer_->Publish(id, std::move(item));
}

void PersistentPlans::OnTriggerAdded(PlanId id, const ExecutionTrigger& trigger) {
  writer_->AppendTrigger(id, EncodeTrigger(trigger));
}

void PersistentPlans::SetTier(PlanId id, Tier tier) {
  if (tier_of_plan_.size() <= id) tier_of_plan_.resize(id + 1, Tier::kExplored);
  tier_of_plan_[id] = tier;
}

void PersistentPlans::OnHit(PlanId id) {
  if (id < tier_of_plan_.size()) {
    if (tier_of_plan_[id] == Tier::kSqlite) hits_from_sqlite_.fetch_add(1);
    if (tier_of_plan_[id] == Tier::kShm) hits_from_shm_.fetch_add(1);
  }
  writer_->Hit(id);
}

bool PersistentPlans::ExplorationAllowed() {
  return !cap_ || explorations_at_open_ + explored_here_ < *cap_;
}

void PersistentPlans::OnExploration() {
  ++explored_here_;
  writer_->Exploration();
}

void PersistentPlans::OnUnfusedRun() { writer_->UnfusedRun(); }

void PersistentPlans::Flush() { writer_->Flush(); }

BackingCounters PersistentPlans::counters() const {
  return {.plans_loaded = loaded_.load(),
          .plans_published = writer_->plans_published(),
          .rows_quarantined = quarantined_.load(),
          .load_ns = load_ns_.load(),
          .hits_from_shm = hits_from_shm_.load(),
          .hits_from_sqlite = hits_from_sqlite_.load()};
}

}  // namespace ember
