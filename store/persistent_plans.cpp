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
  // A read of one first op asks for the bound and one row more, so that a row past it is seen
  // (and said) without the read costing the whole flood.
  if (Status s = plans->db_.Open(db, options.environment, options.max_plans_per_first_op + 1);
      !s.ok()) {
    return s;
  }
  PlanRepository& reader = plans->db_.repository();
  const EnvironmentRowId environment = plans->db_.environment();
  plans->misses_ = MissCandidateCache(CanonicalEnvironmentText(options.environment));
  // Why nothing will be stored (empty: the database is writable). A database that cannot be
  // written still serves every plan it has: a pre-warmed database on a read-only volume, or a
  // full disk, must not cost the warm start.
  std::string unwritable = reader.writable() ? "" : reader.read_only_reason();
  if (Status s = ExplorationBudget::Open(reader, environment, options.workload,
                                         options.max_explorations, &unwritable, &plans->budget_);
      !s.ok()) {
    return s;
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
  plans->writer_ = std::make_unique<PlanWriter>(std::move(writer_connection), environment,
                                                plans->budget_.workload());
  if (options.shm) {
    plans->shm_.Open({.database_path = options.path,
                      .environment = EnvironmentStableId(options.environment),
                      .bytes = options.shm_bytes,
                      .allow_shared_writable = options.allow_shared_writable},
                     options.shm_wait_ms);
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
  plans->db_.Listen();
  PersistentPlans* self = plans.get();
  const bool shm_kernels = !options.allow_shared_writable;
  plans->kernels_ = std::make_unique<PersistentKernels>(
      PersistentKernels::Options{
          .environment = environment, .trusted = trusted, .shm_wait_ms = options.shm_wait_ms},
      [self] { return self->db_.Current(); },
      [self, shm_kernels] { return shm_kernels ? self->shm_.tier() : nullptr; },
      [self](NewKernel kernel) { self->KeepKernel(std::move(kernel)); },
      [self](const KernelBinaryKey& key) { self->LinkKernel(key); });
  if (options.prefetch_kernels && trusted && plans->budget_.workload() != 0) {
    std::vector<StoredKernel> kernels;
    if (Status s = reader.LoadWorkloadKernels(environment, plans->budget_.workload(),
                                              PersistentKernels::kPrefetchBytes, &kernels);
        s.ok()) {
      plans->kernels_->Prefetch(std::move(kernels));
    } else {
      LogFusion(LogLevel::kBasic, [&] {
        return fmt::format(
            "[store] reading the workload's kernels at open failed ({}); each is "
            "read at its first launch",
            s.ToString());
      });
    }
  }
  plans->facts_ = std::make_unique<PersistentFacts>(plans->db_, plans->shm_, *plans->writer_);
  plans->recipes_ = std::make_unique<PersistentRecipes>(plans->db_, plans->shm_, *plans->writer_,
                                                        options.workload);
  *out = std::move(plans);
  return Status::Ok();
}

PersistentPlans::~PersistentPlans() = default;  // the writer applies what is queued

void PersistentPlans::Load(const OperationIr& first, const AddPlan& add) {
  LoadTimer timer(load_ns_);
  const uint64_t hash = HashOp(first);
  // Before any read: what other hosts publish from now on is heard.
  db_.Watch(hash);
  // The shared tier first: a sibling's plan is there before its row is (Note [Write-behind]),
  // and whoever read this first op from the database put its plans there too.
  size_t added = AdmitShared(first, hash, add, nullptr);
  if (added > 0 && shm_.complete()) return;
  // A read that cannot happen (the database is out, closed at exit, or a server out of reach
  // for now) leaves the shared tier's plans, if any. (PlanRepository logs what it read.)
  LoadedPlans loaded;
  (void)db_.Read(hash, &loaded);
  added += AdmitStored(first, hash, loaded, add, nullptr);
  // Nobody has a plan: claim the first op before exploring it, or wait for the sibling that
  // holds the claim.
  if (added == 0 && shm_.ClaimOrWait(hash) && AdmitShared(first, hash, add, nullptr) == 0) {
    // The sibling died, gave up or is slow: explore here, under this process's own claim.
    shm_.Claim(hash);
  }
}

uint64_t PersistentPlans::Generation() {
  // Either moving is enough: the store only compares for change.
  return shm_.generation() + db_.generation();
}

void PersistentPlans::Refresh(const OperationIr& first, const AddPlan& add,
                              const AddTrigger& add_trigger) {
  if (!shm_.on() && !db_.listening()) return;
  LoadTimer timer(load_ns_);
  const uint64_t hash = HashOp(first);
  // The shared tier first: a sibling of this host that already read the server's new plans
  // put them there, and then the server is not asked again.
  AdmitShared(first, hash, add, &add_trigger);
  LoadedPlans loaded;
  if (!db_.listening() || !db_.ReadChanges(hash, Known(), &loaded)) return;
  const size_t added = AdmitStored(first, hash, loaded, add, &add_trigger);
  loaded_on_notify_.fetch_add(added);
  if (added > 0) {
    LogFusion(LogLevel::kMedium, [&] {
      return fmt::format(
          "[store] loaded {} plan(s) for first-op 0x{:016x} that other hosts published", added,
          hash);
    });
  }
}

void PersistentPlans::OnHit(PlanId id) {
  if (id < tier_of_plan_.size()) {
    if (tier_of_plan_[id] == Tier::kDatabase) hits_from_db_.fetch_add(1);
    if (tier_of_plan_[id] == Tier::kShm) hits_from_shm_.fetch_add(1);
  }
  writer_->Hit(id);
}

DeviceFactStore* PersistentPlans::AttachFacts() { return facts_.get(); }

GraphRecipeStore* PersistentPlans::AttachRecipes() { return recipes_.get(); }

bool PersistentPlans::ExplorationAllowed() { return budget_.Allowed(db_); }

void PersistentPlans::OnExploration() {
  // A reserved exploration is already counted in the database; the writer counts the miss.
  writer_->Exploration(/*counted=*/budget_.Spend());
}

void PersistentPlans::OnUnfusedRun() {
  // No plan will come of this segment: siblings waiting on a claim need not wait any more.
  shm_.ReleaseAll();
  writer_->UnfusedRun();
}

void PersistentPlans::MissCandidates(const OperationIr& first,
                                     std::vector<StoredPlanForMiss>* out) {
  if (PlanRepository* db = db_.Current(); db != nullptr) {
    misses_.Collect(first, *db, db_.environment(), Known(), out);
  }
}

void PersistentPlans::OnMiss(const MissExplanation& miss) {
  // The miss's row for the workload (workload_misses, schema 3).
  WorkloadMiss row{.pattern = miss.pattern,
                   .cause = std::string(MissCauseName(miss.cause)),
                   .op_position = static_cast<int64_t>(miss.op),
                   .op_name = miss.op_name,
                   .nearest_plan = miss.plan,
                   .detail = miss.Summary()};
  if (miss.value_here.has_value()) row.values.push_back(*miss.value_here);
  writer_->Miss(std::move(row));
}

void PersistentPlans::Flush() {
  PublishPending();
  // A sync ends every exploration in flight, so no claim of this process is still needed.
  shm_.ReleaseAll();
  writer_->Flush();
}

void PersistentPlans::FlushForSync() {
  PublishPending();
  shm_.ReleaseAll();
  if (sync_waits_) writer_->FlushDurable();
}

void PersistentPlans::Close() {
  db_.StopListening();
  PublishPending();
  shm_.ReleaseAll();
  // Every connection closed: the last one to close in any process has SQLite remove the -wal
  // and -shm, so no log is left to be replayed onto another file (Note [Write-ahead log
  // binding]). Later calls run from memory.
  writer_->Close();
  db_.Close();
}

BackingCounters PersistentPlans::counters() const {
  return {.plans_loaded = loaded_.load(),
          .plans_published = writer_->plans_published(),
          .rows_quarantined = quarantined_.load(),
          .load_ns = load_ns_.load(),
          .plans_loaded_from_shm = loaded_from_shm_.load(),
          .plans_loaded_on_notify = loaded_on_notify_.load(),
          .shm_publish_skipped = shm_.skipped(),
          .hits_from_shm = hits_from_shm_.load(),
          .hits_from_db = hits_from_db_.load()};
}

}  // namespace ember
