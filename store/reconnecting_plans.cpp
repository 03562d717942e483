#include "store/reconnecting_plans.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "engine/core/log.h"
#include "engine/core/plan_db_location.h"

namespace ember {

namespace {

constexpr std::chrono::milliseconds kFirstRetry{100};
constexpr std::chrono::milliseconds kMaxRetry{30000};
// How long Close waits for a connection attempt in progress before leaving it to finish alone
// (a host that drops packets can hold a connect for minutes).
constexpr std::chrono::milliseconds kCloseWait{1000};

}  // namespace

ReconnectingPlans::ReconnectingPlans(PersistentPlansOptions options, const Status& failure)
    : options_(std::move(options)) {
  Warn("plan-db-reconnect:" + options_.path,
       fmt::format("plan database {}: {}; plans stay in memory meanwhile, and ember connects "
                   "again with backoff: what it finds until then is stored once the server is "
                   "back",
                   ShownLocation(options_.path), failure.ToString()));
  thread_ = std::thread(Connect, connector_, options_);
}

ReconnectingPlans::~ReconnectingPlans() { StopConnecting(); }

void ReconnectingPlans::Connect(std::shared_ptr<Connector> connector,
                                PersistentPlansOptions options) {
  std::chrono::milliseconds backoff = kFirstRetry;
  std::unique_lock lock(connector->mu);
  while (!connector->stop) {
    if (connector->cv.wait_for(lock, backoff, [&] { return connector->stop; })) break;
    lock.unlock();
    std::unique_ptr<PersistentPlans> opened;
    const Status s = PersistentPlans::Open(options, &opened);
    lock.lock();
    if (s.ok()) {
      if (!connector->stop) {
        connector->opened = std::move(opened);
        connector->ready.store(true);
      }
      break;
    }
    backoff = std::min(backoff * 2, kMaxRetry);
  }
  connector->done = true;
  connector->cv.notify_all();
}

void ReconnectingPlans::StopConnecting() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(connector_->mu);
    connector_->stop = true;
  }
  connector_->cv.notify_all();
  std::unique_lock lock(connector_->mu);
  if (connector_->cv.wait_for(lock, kCloseWait, [&] { return connector_->done; })) {
    lock.unlock();
    thread_.join();
  } else {
    thread_.detach();  // it holds the connector, never this object
  }
}

size_t ReconnectingPlans::HeldPlans() const {
  return static_cast<size_t>(std::count_if(held_.begin(), held_.end(), [](const Event& e) {
    return std::holds_alternative<PlanFound>(e);
  }));
}

PersistentPlans* ReconnectingPlans::Inner() {
  if (inner_ != nullptr) return inner_.get();
  if (closed_ || !connector_->ready.load()) return nullptr;  // one atomic load per call
  std::unique_ptr<PersistentPlans> opened;
  {
    std::lock_guard lock(connector_->mu);
    opened = std::move(connector_->opened);
  }
  if (opened == nullptr) return nullptr;
  if (thread_.joinable()) thread_.join();  // it ends as soon as it has handed over
  const size_t plans = HeldPlans();
  for (Event& event : held_) {
    if (auto* p = std::get_if<PlanFound>(&event)) {
      opened->OnPlanAdded(p->id, p->plan, p->explore_ms);
    } else if (auto* t = std::get_if<TriggerFound>(&event)) {
      opened->OnTriggerAdded(t->id, t->plan, t->trigger);
    } else {
      opened->OnExploration();
    }
  }
  held_.clear();
  facts_.HandOver(*opened);
  recipes_.HandOver(*opened);
  Warn("plan-db-reconnected:" + options_.path,
       fmt::format("plan database {}: reachable; storing the {} plan(s) found while it was out "
                   "of reach{}",
                   ShownLocation(options_.path), plans,
                   dropped_ > 0 ? fmt::format(" ({} more event(s) were dropped)", dropped_) : ""));
  {
    std::lock_guard lock(inner_mu_);
    inner_ = std::move(opened);
  }
  connected_.store(true);
  return inner_.get();
}

void ReconnectingPlans::Hold(Event event) {
  if (held_.size() < kMaxHeld) {
    held_.push_back(std::move(event));
    return;
  }
  ++dropped_;
  if (!drop_said_) {
    drop_said_ = true;
    Warn("", fmt::format("plan database {}: still out of reach; more than {} plans, triggers and "
                         "explorations are waiting for it, so new ones are no longer kept",
                         ShownLocation(options_.path), kMaxHeld));
  }
}

void ReconnectingPlans::Load(const OperationIr& first, const AddPlan& add) {
  if (PersistentPlans* inner = Inner()) return inner->Load(first, add);
  not_loaded_.push_back(first);
}

uint64_t ReconnectingPlans::Generation() {
  // Moves once when the server's backing takes over, so that the store asks Refresh for every
  // first op it met before (then loaded from the server), and moves with it afterwards.
  PersistentPlans* inner = Inner();
  return inner == nullptr ? 0 : 1 + inner->Generation();
}

void ReconnectingPlans::Refresh(const OperationIr& first, const AddPlan& add,
                                const AddTrigger& add_trigger) {
  PersistentPlans* inner = Inner();
  if (inner == nullptr) return;
  const auto unseen = std::find(not_loaded_.begin(), not_loaded_.end(), first);
  if (unseen == not_loaded_.end()) return inner->Refresh(first, add, add_trigger);
  not_loaded_.erase(unseen);
  inner->Load(first, add);
}

void ReconnectingPlans::OnPlanAdded(PlanId id, const ExecutionPlan& plan, double explore_ms) {
  if (PersistentPlans* inner = Inner()) return inner->OnPlanAdded(id, plan, explore_ms);
  Hold(PlanFound{id, plan, explore_ms});
}

void ReconnectingPlans::OnTriggerAdded(PlanId id, const ExecutionPlan& plan,
                                       const ExecutionTrigger& trigger) {
  if (PersistentPlans* inner = Inner()) return inner->OnTriggerAdded(id, plan, trigger);
  Hold(TriggerFound{id, plan, trigger});
}

void ReconnectingPlans::OnHit(PlanId id) {
  if (PersistentPlans* inner = Inner()) inner->OnHit(id);  // statistics: not held
}

void ReconnectingPlans::OnPlanRunning(PlanId id) {
  if (PersistentPlans* inner = Inner()) inner->OnPlanRunning(id);
}

void ReconnectingPlans::OnPlanRan(PlanId id) {
  if (PersistentPlans* inner = Inner()) inner->OnPlanRan(id);
}

bool ReconnectingPlans::ExplorationAllowed() {
  if (PersistentPlans* inner = Inner()) return inner->ExplorationAllowed();
  return !options_.max_explorations ||
         explored_meanwhile_ < static_cast<int64_t>(*options_.max_explorations);
}

void ReconnectingPlans::OnExploration() {
  if (PersistentPlans* inner = Inner()) return inner->OnExploration();
  ++explored_meanwhile_;
  Hold(Explored{});
}

void ReconnectingPlans::OnUnfusedRun() {
  if (PersistentPlans* inner = Inner()) inner->OnUnfusedRun();
}

void ReconnectingPlans::Flush() {
  std::lock_guard lock(inner_mu_);
  if (inner_ != nullptr) inner_->Flush();
}

void ReconnectingPlans::FlushForSync() {
  std::lock_guard lock(inner_mu_);
  if (inner_ != nullptr) inner_->FlushForSync();
}

void ReconnectingPlans::Close() {
  StopConnecting();
  // A backing opened just before the stop still takes what this process found.
  if (PersistentPlans* inner = Inner()) {
    closed_ = true;
    return inner->Close();
  }
  closed_ = true;
  const size_t plans = HeldPlans();
  if (plans > 0) {
    Warn("", fmt::format("plan database {}: never reachable; the {} plan(s) this process found "
                         "were not stored",
                         ShownLocation(options_.path), plans));
  }
}

std::optional<std::string> ReconnectingPlans::Facts::Find(std::string_view name) {
  if (PersistentPlans* inner = owner_.Inner()) return inner->AttachFacts()->Find(name);
  const auto it = meanwhile_.find(name);
  if (it == meanwhile_.end()) return std::nullopt;
  return it->second;
}

void ReconnectingPlans::Facts::Remember(std::string_view name, std::string_view value) {
  if (PersistentPlans* inner = owner_.Inner()) return inner->AttachFacts()->Remember(name, value);
  // What the store would refuse is not kept either; past kMaxHeld names, new ones are not.
  if (!PlanRepository::CheckDeviceFact(name, value).ok()) return;
  if (meanwhile_.size() >= kMaxHeld && !meanwhile_.contains(name)) return;
  meanwhile_.insert_or_assign(std::string(name), std::string(value));
}

void ReconnectingPlans::Facts::HandOver(PersistentPlans& inner) {
  for (const auto& [name, value] : meanwhile_) inner.AttachFacts()->Remember(name, value);
  meanwhile_.clear();
}

std::vector<GraphRecipe> ReconnectingPlans::Recipes::LoadAll() {
  if (PersistentPlans* inner = owner_.Inner()) return inner->AttachRecipes()->LoadAll();
  std::vector<GraphRecipe> all;
  for (const auto& [key, recipe] : meanwhile_) all.push_back(recipe);
  return all;
}

void ReconnectingPlans::Recipes::Remember(const GraphRecipe& recipe) {
  if (PersistentPlans* inner = owner_.Inner()) return inner->AttachRecipes()->Remember(recipe);
  // What the store would refuse is not kept either; past kMaxHeld recipes, new ones are not.
  if (!PlanRepository::CheckGraphRecipe(owner_.options_.workload, recipe).ok()) return;
  if (meanwhile_.size() >= kMaxHeld && !meanwhile_.contains(recipe.key)) return;
  meanwhile_.insert_or_assign(recipe.key, recipe);
}

void ReconnectingPlans::Recipes::HandOver(PersistentPlans& inner) {
  for (const auto& [key, recipe] : meanwhile_) inner.AttachRecipes()->Remember(recipe);
  meanwhile_.clear();
}

BackingCounters ReconnectingPlans::counters() const {
  return connected_.load() ? inner_->counters() : BackingCounters{};
}

}  // namespace ember
