#include "store/plan_change_listener.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/core/log.h"
#include "store/repository/plan_writer.h"

namespace ember {
namespace {

// How long one Wait blocks: only bounds how late a lost connection is noticed when nothing is
// published (a stop interrupts it at once).
constexpr std::chrono::milliseconds kWaitSlice{1000};

}  // namespace

PlanChangeListener::PlanChangeListener(std::unique_ptr<PlanChangeFeed> feed,
                                       EnvironmentRowId environment, std::string location)
    : feed_(std::move(feed)), environment_(environment), location_(std::move(location)) {
  thread_ = std::thread([this] { Run(); });
}

PlanChangeListener::~PlanChangeListener() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  feed_->Interrupt();
  thread_.join();
}

uint64_t PlanChangeListener::Watch(uint64_t first_op_hash) {
  std::lock_guard lock(mutex_);
  watched_.try_emplace(first_op_hash);
  return epoch_;
}

PlanChangeListener::Pending PlanChangeListener::Take(uint64_t first_op_hash, uint64_t synced) {
  std::lock_guard lock(mutex_);
  Pending out;
  out.epoch = epoch_;
  out.resync = synced != epoch_;
  auto it = watched_.find(first_op_hash);
  if (it == watched_.end()) return out;
  out.plans = std::move(it->second.plans);
  out.triggers = it->second.triggers;
  it->second = Entry{};
  return out;
}

void PlanChangeListener::Requeue(uint64_t first_op_hash, Pending pending) {
  std::lock_guard lock(mutex_);
  Entry& entry = watched_[first_op_hash];
  entry.plans.insert(entry.plans.end(), pending.plans.begin(), pending.plans.end());
  entry.triggers = entry.triggers || pending.triggers;
  // (A resync is asked again by the epoch: the caller's `synced` did not move.)
  generation_.fetch_add(1, std::memory_order_release);
}

void PlanChangeListener::Apply(const std::vector<PlanChange>& changes) {
  bool moved = false;
  std::lock_guard lock(mutex_);
  for (const PlanChange& change : changes) {
    if (change.from_this_process || change.environment != environment_) continue;
    heard_.fetch_add(1);
    auto it = watched_.find(change.first_op_hash);
    if (it == watched_.end()) continue;
    Entry& entry = it->second;
    if (change.kind == PlanChange::Kind::kTrigger) {
      entry.triggers = true;
    } else if (std::find(entry.plans.begin(), entry.plans.end(), change.plan_key) ==
               entry.plans.end()) {
      entry.plans.push_back(change.plan_key);
    }
    moved = true;
  }
  if (moved) generation_.fetch_add(1, std::memory_order_release);
}

bool PlanChangeListener::Pause(std::chrono::milliseconds pause) {
  std::unique_lock lock(mutex_);
  return !stop_cv_.wait_for(lock, pause, [this] { return stopping_; });
}

void PlanChangeListener::Run() {
  std::vector<PlanChange> changes;
  std::chrono::milliseconds backoff = PlanWriter::kFirstRetry;
  while (true) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
    }
    changes.clear();
    Status s = feed_->Wait(kWaitSlice, &changes);
    if (s.ok()) {
      if (!changes.empty()) Apply(changes);
      continue;
    }
    // (The reader and the writer say at `basic` that the server is out of reach.)
    LogFusion(LogLevel::kMedium, [&] {
      return fmt::format(
          "[store] plan database {}: no longer hearing of plans other hosts publish ({}); "
          "reconnecting with backoff, then reading again what this process uses",
          location_, s.ToString());
    });
    while (Pause(backoff)) {
      if (feed_->Reconnect().ok()) break;
      backoff = std::min(backoff * 2, PlanWriter::kMaxRetry);
    }
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      ++epoch_;
    }
    backoff = PlanWriter::kFirstRetry;
    reconnections_.fetch_add(1);
    generation_.fetch_add(1, std::memory_order_release);
    LogFusion(LogLevel::kMedium, [&] {
      return fmt::format("[store] plan database {}: hearing of other hosts' plans again",
                         location_);
    });
  }
}

}  // namespace ember
