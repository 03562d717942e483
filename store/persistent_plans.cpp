#include "store/persistent_plans.h"

#include "engine/core/plan_db_location.h"

#include <unistd.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "engine/core/log.h"
#include "engine/ir/hash.h"
#include "store/codec/plan_codec.h"

namespace ember {
namespace {

TriggerRow EncodeTrigger(const ExecutionTrigger& trigger) {
  TriggerRow row{.kind = static_cast<int>(trigger.kind)};
  if (trigger.kind == ExecutionTrigger::Kind::kOnOperations) {
    row.ops_blob = EncodeOperations(trigger.operations);
  }
  return row;
}

PublishItem ItemFor(const ExecutionPlan& plan) {
  PublishItem item;
  item.plan.first_op_hash = FirstOpHash(plan.operations);
  item.plan.plan_key = PlanKey(plan.operations);
  item.plan.ops_blob = EncodeOperations(plan.operations);
  item.plan.plan_blob = EncodeBlockOptimization(plan.optimization);
  item.plan.num_ops = static_cast<uint32_t>(plan.operations.size());
  item.plan.first_op_kind = static_cast<int>(plan.operations.front().kind);
  item.plan.found_dims = plan.found_dims;
  for (const ExecutionTrigger& trigger : plan.triggers) {
    item.triggers.push_back(EncodeTrigger(trigger));
  }
  return item;
}

// Stats::plan_load_ms: the whole body of Load or Refresh, every return included (the
// warm-start benchmark's "time spent loading and validating the plan set").
class LoadTimer {
 public:
  explicit LoadTimer(std::atomic<uint64_t>& total) : total_(total) {}
  ~LoadTimer() {
    total_.fetch_add(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                               std::chrono::steady_clock::now() - start_)
                                               .count()));
  }

 private:
  std::atomic<uint64_t>& total_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

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
  plans->max_plans_per_first_op_ = options.max_plans_per_first_op;
  PlanDbOptions db{.path = options.path, .allow_shared_writable = options.allow_shared_writable};
  if (Status s = PlanRepository::Open(db, &plans->reader_); !s.ok()) return s;
  PlanRepository& reader = *plans->reader_;
  if (Status s = reader.EnsureEnvironment(options.environment, &plans->environment_); !s.ok()) {
    return s;
  }
  plans->environment_text_ = CanonicalEnvironmentText(options.environment);
  // Why nothing will be stored (empty: the database is writable). A database that cannot be
  // written still serves every plan it has: a pre-warmed database on a read-only volume, or a
  // full disk, must not cost the warm start.
  std::string unwritable = reader.writable() ? "" : reader.read_only_reason();
  WorkloadRow workload;
  bool found = true;
  if (unwritable.empty()) {
    if (Status s = reader.GetOrCreateWorkload(plans->environment_, options.workload, &workload);
        !s.ok()) {
      unwritable = s.ToString();
    }
  }
  if (!unwritable.empty()) {
    if (Status s = reader.FindWorkload(plans->environment_, options.workload, &found, &workload);
        !s.ok()) {
      return s;
    }
  }
  if (found) {
    plans->workload_ = workload.id;
    plans->explorations_at_open_ = workload.explorations;
    plans->cap_ = workload.max_explorations;
  }
  if (options.max_explorations) {
    plans->configured_cap_ = static_cast<int64_t>(*options.max_explorations);
  }
  if (!plans->cap_ && options.max_explorations) {
    plans->cap_ = static_cast<int64_t>(*options.max_explorations);
  }
  std::unique_ptr<PlanRepository> writer_connection;
  if (unwritable.empty()) {
    if (Status s = PlanRepository::Open(db, &writer_connection); !s.ok()) unwritable = s.ToString();
  }
  if (!unwritable.empty()) {
    writer_connection.reset();
    Warn("plan-db-readonly:" + options.path,
         fmt::format("plan database {}: nothing new can be stored ({}); its plans are used, "
                     "but plans found from now on are not stored and the exploration budget is "
                     "counted in this process only",
                     ShownLocation(options.path), unwritable));
  }
  plans->sync_waits_ = writer_connection == nullptr || writer_connection->SyncWaitsForWrites();
  plans->writer_ = std::make_unique<PlanWriter>(std::move(writer_connection), plans->environment_,
                                                plans->workload_);
  if (options.shm) {
    plans->shm_options_ = {.database_path = options.path,
                           .environment = EnvironmentStableId(options.environment),
                           .bytes = options.shm_bytes,
                           .allow_shared_writable = options.allow_shared_writable};
    plans->shm_wait_ms_ = options.shm_wait_ms;
    if (Status s = SharedPlanTier::Open(plans->shm_options_, &plans->tier_); !s.ok()) {
      // SQLite alone still shares plans, only later; but a refused segment (one others can
      // write) or an unusable one is something the user must hear about.
      Warn("shm-off:" + options.path, fmt::format("shared-memory tier off: {}", s.message()));
    }
  }
  std::string untrusted;
  const bool trusted = PersistentKernels::FileTrustedForKernels(
      options.path, options.allow_shared_writable, &untrusted);
  if (!trusted) {
    Warn("kernels-untrusted:" + options.path,
         fmt::format("plan database {}: compiled kernels are neither loaded from it nor stored "
                     "in it ({}): a kernel binary is code, and allow_shared_writable widens the "
                     "trust of plans only",
                     ShownLocation(options.path), untrusted));
  }
  std::unique_ptr<PlanChangeFeed> feed;
  if (Status s = reader.OpenChangeFeed(&feed); !s.ok()) {
    Warn("plan-db-feed:" + options.path,
         fmt::format("plan database {}: plans other hosts publish are seen only when a first op "
                     "is first met, not while this process runs ({})",
                     ShownLocation(options.path), s.ToString()));
  } else if (feed != nullptr) {
    plans->listener_ = std::make_unique<PlanChangeListener>(std::move(feed), plans->environment_,
                                                            reader.location());
  }
  PersistentPlans* self = plans.get();
  const bool shm_kernels = !options.allow_shared_writable;
  plans->kernels_ = std::make_unique<PersistentKernels>(
      PersistentKernels::Options{.environment = plans->environment_,
                                 .trusted = trusted,
                                 .shm_wait_ms = options.shm_wait_ms},
      [self] { return self->reads_failed_ || self->reader_down_ ? nullptr : self->reader_.get(); },
      [self, shm_kernels] { return shm_kernels ? self->tier_.get() : nullptr; },
      [self](NewKernel kernel) { self->KeepKernel(std::move(kernel)); },
      [self](const KernelBinaryKey& key) { self->LinkKernel(key); });
  *out = std::move(plans);
  return Status::Ok();
}

PersistentPlans::~PersistentPlans() = default;  // the writer applies what is queued

bool PersistentPlans::ReaderUp() {
  if (!reader_down_) return true;
  if (std::chrono::steady_clock::now() < reader_retry_at_) return false;
  if (reader_->Reconnect().ok()) {
    reader_down_ = false;
    return true;
  }
  reader_backoff_ = std::min(reader_backoff_ * 2, PlanWriter::kMaxRetry);
  reader_retry_at_ = std::chrono::steady_clock::now() + reader_backoff_;
  return false;
}

void PersistentPlans::Load(const OperationIr& first, const AddPlan& add) {
  LoadTimer timer(load_ns_);
  const uint64_t hash = HashOp(first);
  // Before any read: what other hosts publish from now on is heard.
  if (listener_ != nullptr) db_synced_[hash] = listener_->Watch(hash);
  // The shared tier first: a sibling's plan is there before its row is (Note [Write-behind]),
  // and whoever read this first op from SQLite put its plans there too.
  size_t added = tier_ != nullptr ? LoadShared(first, hash, add, nullptr) : 0;
  if (added > 0 && tier_ != nullptr && !tier_->incomplete()) return;
  LoadedPlans loaded;
  if (reads_failed_ || reader_ == nullptr || !ReaderUp()) {
    // The database is out (or closed at exit, or a server out of reach for now); the shared
    // tier may still have a sibling's plan.
  } else if (Status s = reader_->LoadPlansByFirstOp(environment_, hash, &loaded, RowsToRead());
             !s.ok()) {
    OnReadFailure(s);
  }
  added += AddStoredPlans(first, hash, loaded, add, nullptr);
  // (PlanRepository logs what it read from SQLite.)
  if (added == 0 && tier_ != nullptr) {
    ClaimOrWait(first, hash, add);
  }
}

void PersistentPlans::OnReadFailure(const Status& s) {
  if (reader_->IsTransient(s)) {
    reader_down_ = true;
    reader_backoff_ = PlanWriter::kFirstRetry;
    reader_retry_at_ = std::chrono::steady_clock::now() + reader_backoff_;
    Warn("plan-db-read-unreachable:" + reader_->location(),
         fmt::format("reading plans failed ({}); segments explore meanwhile, and reads "
                     "resume when the database is back",
                     s.ToString()));
  } else {
    reads_failed_ = true;
    Warn("plan-db-read:" + reader_->location(),
         fmt::format("reading plans failed ({}); stored plans are not used from now on, "
                     "segments explore instead",
                     s.ToString()));
  }
}

void PersistentPlans::AddOthersTriggers(PlanId id, ExecutionPlan& plan,
                                        const AddTrigger& add_trigger) {
  applying_shared_ = true;
  for (ExecutionTrigger& trigger : plan.triggers) add_trigger(id, std::move(trigger));
  applying_shared_ = false;
}

uint64_t PersistentPlans::Generation() {
  // Either moving is enough: the store only compares for change.
  return (tier_ != nullptr ? tier_->generation() : 0) +
         (listener_ != nullptr ? listener_->generation() : 0);
}

void PersistentPlans::Refresh(const OperationIr& first, const AddPlan& add,
                              const AddTrigger& add_trigger) {
  if (tier_ == nullptr && listener_ == nullptr) return;
  LoadTimer timer(load_ns_);
  const uint64_t hash = HashOp(first);
  // The shared tier first: a sibling of this host that already read the server's new plans
  // put them there, and then the server is not asked again.
  if (tier_ != nullptr) LoadShared(first, hash, add, &add_trigger);
  if (listener_ != nullptr) RefreshFromDatabase(first, hash, add, add_trigger);
}

void PersistentPlans::RefreshFromDatabase(const OperationIr& first, uint64_t hash,
                                          const AddPlan& add, const AddTrigger& add_trigger) {
  auto synced = db_synced_.find(hash);
  if (synced == db_synced_.end()) return;  // (never loaded: Load reads it all)
  PlanChangeListener::Pending pending = listener_->Take(hash, synced->second);
  bool read = pending.resync || pending.triggers;
  for (const Hash128& key : pending.plans) read = read || !known_.contains(key);
  if (!read) {
    synced->second = pending.epoch;
    return;
  }
  LoadedPlans loaded;
  Status s = Status::Unavailable("the database is not read now");
  if (!reads_failed_ && reader_ != nullptr && ReaderUp()) {
    s = reader_->LoadPlansByFirstOp(environment_, hash, &loaded, RowsToRead());
    if (!s.ok()) OnReadFailure(s);
  }
  if (!s.ok()) {
    // Asked again at a later segment (while reads pause, or never once they stopped).
    if (!reads_failed_) listener_->Requeue(hash, std::move(pending));
    return;
  }
  synced->second = pending.epoch;
  const size_t added = AddStoredPlans(first, hash, loaded, add, &add_trigger);
  loaded_by_notify_.fetch_add(added);
  if (added > 0) {
    LogFusion(LogLevel::kMedium, [&] {
      return fmt::format(
          "[store] loaded {} plan(s) for first-op 0x{:016x} that other hosts published", added,
          hash);
    });
  }
}

size_t PersistentPlans::LoadShared(const OperationIr& first, uint64_t hash, const AddPlan& add,
                                   const AddTrigger* add_trigger) {
  std::vector<SharedPlanTier::Entry> entries;
  uint64_t head = 0;
  if (Status s = tier_->Lookup(hash, &entries, shm_heads_[hash], &head); !s.ok()) {
    OnSharedFailure(s);
    return 0;
  }
  shm_heads_[hash] = head;
  size_t added = 0;
  size_t cut = 0;
  size_t& held = loaded_per_first_op_[hash];
  for (SharedPlanTier::Entry& entry : entries) {
    const auto known = known_.find(entry.key);
    if (known == known_.end() && held >= max_plans_per_first_op_) {
      ++cut;
      continue;
    }
    ExecutionPlan plan;
    if (Status s = DecodePlan(entry.encoded_plan, &plan); !s.ok()) {
      // The checksum matched, so the bytes are as published: a sibling of another build.
      LogFusion(LogLevel::kBasic, [&] {
        return fmt::format(
            "[store] a shared plan for first-op 0x{:016x} is unusable ({}); "
            "ignored",
            hash, s.ToString());
      });
      continue;
    }
    if (!(plan.operations.front() == first)) continue;
    if (PlanKey(plan.operations) != entry.key) {
      // Published under a key that is not its ops' (the segment has no rows to quarantine).
      LogFusion(LogLevel::kBasic, [&] {
        return fmt::format(
            "[store] a shared plan for first-op 0x{:016x} is published under key {}, not its "
            "ops' ({}); ignored",
            hash, FormatHash(entry.key), FormatHash(PlanKey(plan.operations)));
      });
      continue;
    }
    if (known != known_.end()) {
      // A newer version of a plan the store has: the triggers siblings added since.
      if (add_trigger != nullptr) AddOthersTriggers(known->second, plan, *add_trigger);
      continue;
    }
    // The writer finds the row the finder wrote (binding it) or writes it, if the finder died
    // before its write-behind committed.
    PublishItem item = ItemFor(plan);
    const PlanId id = add(std::move(plan));
    writer_->Adopt(id, std::move(item));
    SetTier(id, Tier::kShm);
    known_.emplace(entry.key, id);
    loaded_.fetch_add(1);
    loaded_from_shm_.fetch_add(1);
    ++held;
    ++added;
  }
  if (cut > 0) SayCut(hash, "the shared segment " + tier_->segment().name());
  if (added > 0) {
    LogFusion(LogLevel::kMedium, [&] {
      return fmt::format("[store] loaded {} plan(s) for first-op 0x{:016x} from shared memory",
                         added, hash);
    });
  }
  return added;
}

size_t PersistentPlans::ClaimOrWait(const OperationIr& first, uint64_t hash, const AddPlan& add) {
  if (tier_->Claim(hash) == SharedPlanTier::ClaimOutcome::kMine || shm_wait_ms_ == 0) return 0;
  LogFusion(LogLevel::kMedium, [&] {
    return fmt::format(
        "[store] first-op 0x{:016x} is being explored by a sibling; waiting up "
        "to {} ms",
        hash, shm_wait_ms_);
  });
  tier_->WaitForSibling(hash, std::chrono::milliseconds(shm_wait_ms_));
  if (tier_ == nullptr) return 0;
  if (const size_t added = LoadShared(first, hash, add, nullptr); added > 0) return added;
  // The sibling died, gave up or is slow: explore here, under this process's own claim.
  if (tier_ != nullptr) tier_->Claim(hash);
  return 0;
}

void PersistentPlans::PublishShared(uint64_t hash, const Hash128& key, const ExecutionPlan& plan) {
  PublishShared(hash, key, EncodePlan(plan));
}

void PersistentPlans::PublishShared(uint64_t hash, const Hash128& key,
                                    std::span<const uint8_t> encoded) {
  switch (tier_->Publish(hash, key, encoded)) {
    case SharedPlanTier::PublishOutcome::kPublished: return;
    case SharedPlanTier::PublishOutcome::kFull:
      shm_skipped_.fetch_add(1);
      if (!shm_full_logged_) {
        shm_full_logged_ = true;
        LogFusion(LogLevel::kBasic, [&] {
          return fmt::format(
              "[store] shared plan segment {} is full ({} bytes); new plans go "
              "to the database only ([store] shm_bytes sets its size)",
              tier_->segment().name(), tier_->segment().size());
        });
      }
      return;
    case SharedPlanTier::PublishOutcome::kBroken:
      shm_skipped_.fetch_add(1);
      OnSharedFailure(Status::Unavailable(tier_->BrokenReason()));
      return;
  }
}

void PersistentPlans::OnSharedFailure(const Status& status) {
  const std::string name = tier_->segment().name();
  tier_.reset();
  shm_heads_.clear();  // positions in the old segment
  std::string reopen = fmt::format("reopened it {} times already", shm_reopens_);
  if (shm_reopens_ < kMaxShmReopens) {
    ++shm_reopens_;
    bool recreated = false;
    Status s = SharedPlanTier::Open(shm_options_, &tier_, &recreated);
    if (s.ok()) {
      LogFusion(LogLevel::kBasic, [&] {
        return fmt::format("[store] shared plan segment {}: {}; {}", name, status.ToString(),
                           recreated ? "recreated it" : "reopened it (a sibling recreated it)");
      });
      return;
    }
    reopen = fmt::format("reopening it failed: {}", s.message());
  }
  Warn("shm-off:" + shm_options_.database_path,
       fmt::format("shared plan segment {}: {}; {}; shared-memory tier off, going on with the "
                   "plan database alone",
                   name, status.ToString(), reopen));
}

void PersistentPlans::OnPlanAdded(PlanId id, const ExecutionPlan& plan, double explore_ms) {
  PublishItem item = ItemFor(plan);
  item.plan.explore_ms = explore_ms;
  known_.emplace(item.plan.plan_key, id);
  if (kernels_attached_) {
    PublishPending();  // (a plan that never ran: not expected, but never lost)
    pending_ = PendingPlan{.id = id, .item = std::move(item), .encoded = EncodePlan(plan)};
    return;
  }
  if (tier_ != nullptr) {
    // Siblings see it now, before the write-behind below commits it.
    PublishShared(item.plan.first_op_hash, item.plan.plan_key, plan);
    if (tier_ != nullptr) tier_->Release(item.plan.first_op_hash);
  }
  writer_->Publish(id, std::move(item));
}

void PersistentPlans::OnTriggerAdded(PlanId id, const ExecutionPlan& plan,
                                     const ExecutionTrigger& trigger) {
  // A sibling's trigger read from the segment: it publishes and writes its own.
  if (applying_shared_) return;
  if (pending_.has_value() && pending_->id == id) {
    pending_->item.triggers.push_back(EncodeTrigger(trigger));
    pending_->encoded = EncodePlan(plan);
    return;
  }
  writer_->AppendTrigger(id, EncodeTrigger(trigger));
  // Siblings that load or refresh this plan get the trigger from its newer version.
  if (tier_ != nullptr) PublishShared(FirstOpHash(plan.operations), PlanKey(plan.operations), plan);
}

KernelStore* PersistentPlans::AttachKernels() {
  kernels_attached_ = true;
  return kernels_.get();
}

void PersistentPlans::OnPlanRunning(PlanId id) { running_ = id; }

void PersistentPlans::OnPlanRan(PlanId id) {
  running_.reset();
  if (pending_.has_value() && pending_->id == id) PublishPending();
}

void PersistentPlans::KeepKernel(NewKernel kernel) {
  if (running_.has_value() && pending_.has_value() && pending_->id == *running_) {
    pending_->item.kernels.push_back(std::move(kernel));
    return;
  }
  writer_->Kernel(running_, std::move(kernel));
}

void PersistentPlans::LinkKernel(const KernelBinaryKey& key) {
  // Only a plan in its first run gains links: a stored plan's were made when it was found.
  if (!running_.has_value() || !pending_.has_value() || pending_->id != *running_) return;
  if (!pending_->linked.insert(key.hash).second) return;
  pending_->item.used_kernels.push_back(KernelRowKey(key));
}

void PersistentPlans::PublishPending() {
  if (!pending_.has_value()) return;
  PendingPlan pending = std::move(*pending_);
  pending_.reset();
  if (tier_ != nullptr) {
    const uint64_t hash = pending.item.plan.first_op_hash;
    PublishShared(hash, pending.item.plan.plan_key, pending.encoded);
    if (tier_ != nullptr) tier_->Release(hash);
  }
  writer_->Publish(pending.id, std::move(pending.item));
}

void PersistentPlans::SetTier(PlanId id, Tier tier) {
  if (tier_of_plan_.size() <= id) tier_of_plan_.resize(id + 1, Tier::kExplored);
  tier_of_plan_[id] = tier;
}

void PersistentPlans::OnHit(PlanId id) {
  if (id < tier_of_plan_.size()) {
    if (tier_of_plan_[id] == Tier::kDatabase) hits_from_db_.fetch_add(1);
    if (tier_of_plan_[id] == Tier::kShm) hits_from_shm_.fetch_add(1);
  }
  writer_->Hit(id);
}

bool PersistentPlans::ExplorationAllowed() {
  if (!cap_) return true;
  if (reserved_) return true;  // granted before, and not spent yet
  if (workload_ != 0 && !reads_failed_ && reader_ != nullptr && reader_->writable() && ReaderUp()) {
    bool granted = false;
    int64_t count = 0;
    if (reader_->TryReserveExploration(workload_, configured_cap_, &granted, &count).ok()) {
      reserved_ = granted;
      return granted;
    }
  }
  return explorations_at_open_ + explored_here_ < *cap_;
}

void PersistentPlans::OnExploration() {
  ++explored_here_;
  // A reserved exploration is already counted in the database; the writer counts the miss.
  writer_->Exploration(/*counted=*/std::exchange(reserved_, false));
}

void PersistentPlans::OnUnfusedRun() {
  // No plan will come of this segment: siblings waiting on a claim need not wait any more.
  if (tier_ != nullptr) tier_->ReleaseAll();
  writer_->UnfusedRun();
}

void PersistentPlans::Flush() {
  PublishPending();
  // A sync ends every exploration in flight, so no claim of this process is still needed.
  if (tier_ != nullptr) tier_->ReleaseAll();
  writer_->Flush();
}

void PersistentPlans::FlushForSync() {
  PublishPending();
  if (tier_ != nullptr) tier_->ReleaseAll();
  if (sync_waits_) writer_->FlushDurable();
}

void PersistentPlans::Close() {
  listener_.reset();
  PublishPending();
  if (tier_ != nullptr) tier_->ReleaseAll();
  // Every connection closed: the last one to close in any process has SQLite remove the -wal
  // and -shm, so no log is left to be replayed onto another file (Note [Write-ahead log
  // binding]). Later calls run from memory.
  writer_->Close();
  reader_.reset();
}

BackingCounters PersistentPlans::counters() const {
  return {.plans_loaded = loaded_.load(),
          .plans_published = writer_->plans_published(),
          .rows_quarantined = quarantined_.load(),
          .load_ns = load_ns_.load(),
          .plans_loaded_from_shm = loaded_from_shm_.load(),
          .plans_loaded_on_notify = loaded_by_notify_.load(),
          .shm_publish_skipped = shm_skipped_.load(),
          .hits_from_shm = hits_from_shm_.load(),
          .hits_from_db = hits_from_db_.load()};
}

}  // namespace ember
