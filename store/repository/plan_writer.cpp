#include "store/repository/plan_writer.h"

#include <algorithm>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "engine/core/log.h"

namespace ember {

PlanWriter::PlanWriter(std::unique_ptr<PlanRepository> repository, EnvironmentRowId environment,
                       WorkloadRowId workload)
    : repository_(std::move(repository)), environment_(environment), workload_(workload) {
  if (repository_ == nullptr) {
    closed_ = true;
    return;
  }
  thread_ = std::thread([this] { Run(); });
}

PlanWriter::~PlanWriter() { Stop(); }

void PlanWriter::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PlanWriter::Close() {
  Checkpoint();
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  Stop();
  repository_.reset();
}

void PlanWriter::Enqueue(Message message) {
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    queue_.push_back(std::move(message));
    durable_ = ++enqueued_;
  }
  work_cv_.notify_one();
}

void PlanWriter::Count(std::optional<PlanId> hit) {
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    // Counters wait for company or for kCounterDelay (Note [Write-behind]): only the first of
    // a run wakes the writer, which then sleeps until the delay is over.
    const bool first_pending = enqueued_ == applied_;
    if (first_pending) counters_since_ = std::chrono::steady_clock::now();
    ++enqueued_;
    ++pending_.count;
    if (hit) {
      ++pending_.hits[*hit];
    } else {
      ++pending_.unfused;
    }
    if (!first_pending) return;
  }
  work_cv_.notify_one();
}

void PlanWriter::Bind(PlanId id, PlanRowId row) {
  Enqueue({.kind = Message::Kind::kBind, .id = id, .row = row});
}
void PlanWriter::Publish(PlanId id, PublishItem item) {
  Enqueue({.kind = Message::Kind::kPublish, .id = id, .item = std::move(item)});
}
void PlanWriter::AppendTrigger(PlanId id, TriggerRow trigger) {
  Enqueue({.kind = Message::Kind::kTrigger, .id = id, .trigger = std::move(trigger)});
}
void PlanWriter::Kernel(std::optional<PlanId> plan, NewKernel kernel) {
  Message m{.kind = Message::Kind::kKernel, .id = plan.value_or(0), .has_plan = plan.has_value()};
  m.item.kernels.push_back(std::move(kernel));
  Enqueue(std::move(m));
}
void PlanWriter::Adopt(PlanId id, PublishItem item) {
  Enqueue({.kind = Message::Kind::kAdopt, .id = id, .item = std::move(item)});
}

void PlanWriter::Hit(PlanId id) { Count(id); }
void PlanWriter::Exploration() { Enqueue({.kind = Message::Kind::kExploration}); }
void PlanWriter::UnfusedRun() { Count(std::nullopt); }
void PlanWriter::Quarantine(PlanRowId row, std::string reason) {
  Enqueue({.kind = Message::Kind::kQuarantine, .row = row, .reason = std::move(reason)});
}

void PlanWriter::Checkpoint() {
  Enqueue({.kind = Message::Kind::kCheckpoint});
  Flush();
}

void PlanWriter::Flush() {
  std::unique_lock lock(mu_);
  const uint64_t target = enqueued_;
  ++flushing_;
  work_cv_.notify_one();  // queued counters are not to wait for their delay
  done_cv_.wait(lock, [&] { return applied_ >= target; });
  --flushing_;
}

void PlanWriter::FlushDurable() {
  std::unique_lock lock(mu_);
  const uint64_t target = durable_;
  done_cv_.wait(lock, [&] { return applied_ >= target; });
}

void PlanWriter::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    work_cv_.wait(lock, [&] { return stop_ || !queue_.empty() || pending_.count > 0; });
    // Anything but counters, a Flush or the stop goes at once; counters alone wait their delay.
    auto ready = [&] { return stop_ || durable_ > applied_ || flushing_ > 0; };
    if (!ready()) work_cv_.wait_until(lock, counters_since_ + kCounterDelay, ready);
    if (queue_.empty() && pending_.count == 0 && stop_) return;
    std::vector<Message> batch(std::make_move_iterator(queue_.begin()),
                               std::make_move_iterator(queue_.end()));
    queue_.clear();
    Counters counters = std::exchange(pending_, Counters{});
    lock.unlock();
    if (!failed_.load()) Apply(batch, counters);
    lock.lock();
    applied_ += batch.size() + counters.count;
    done_cv_.notify_all();
  }
}

bool PlanWriter::Check(const Status& status, const char* what) {
  if (status.ok()) return true;
  if (!failed_.exchange(true)) {
    const std::string& path = repository_->location();
    Warn("plan-db-write:" + path,
         fmt::format("plan database {}: {} failed ({}); plans found from now on are not stored "
                     "(the next run explores them again), plans committed before are kept",
                     path, what, status.ToString()));
  }
  return false;
}

void PlanWriter::Apply(std::vector<Message>& batch, const Counters& counted) {
  // A SQLite file moved away from its path (SqlitePlanRepository::CheckBeforeWriting).
  if (Status moved = repository_->CheckBeforeWriting(); !moved.ok()) {
    Check(moved, "writing");
    return;
  }
  // Bindings first: everything later in the batch may refer to a loaded plan.
  for (const Message& m : batch) {
    if (m.kind == Message::Kind::kBind) rows_[m.id] = m.row;
  }
  // Adopted plans whose row exists are only bound: a read, no write transaction.
  for (Message& m : batch) {
    if (m.kind != Message::Kind::kAdopt) continue;
    std::optional<PlanRowId> row;
    if (!Check(repository_->FindPlanByKey(environment_, m.item.plan.plan_key, &row),
               "finding an adopted plan")) {
      return;
    }
    if (row.has_value()) {
      rows_[m.id] = *row;
    } else {
      m.kind = Message::Kind::kPublish;
    }
  }
  // New plans, with the triggers they were found with, in one transaction.
  PublishBatch publish{.environment_id = environment_};
  std::vector<PlanId> published_ids;
  for (Message& m : batch) {
    if (m.kind != Message::Kind::kPublish) continue;
    publish.plans.push_back(std::move(m.item));
    published_ids.push_back(m.id);
  }
  if (!publish.plans.empty()) {
    PublishResult result;
    if (!Check(repository_->Publish(publish, &result), "publishing plans")) return;
    for (size_t i = 0; i < published_ids.size(); ++i) {
      const InsertResult& r = result.plans[i];
      if (r.outcome == InsertOutcome::kKeyCollision) continue;  // in memory only
      rows_[published_ids[i]] = r.plan_id;
      if (r.outcome == InsertOutcome::kExisting) {
        // Another process was first: keep its row, merge the triggers found here.
        if (!Check(repository_->AppendTriggers(r.plan_id, publish.plans[i].triggers),
                   "merging triggers")) {
          return;
        }
      } else {
        published_.fetch_add(1);
      }
    }
  }
  // Triggers, hits and workload counters. Every hit counted before this batch was taken is of
  // a plan whose Bind or Publish was enqueued before the hit, so is in rows_ by now (or never:
  // a key collision kept in memory only).
  PublishBatch triggers{.environment_id = environment_};
  std::vector<std::pair<PlanRowId, int64_t>> hits;
  int64_t explorations = 0;
  WorkloadCounters counters;
  counters.unfused_runs = counted.unfused;
  counters.misses = counted.unfused;
  for (const auto& [id, count] : counted.hits) {
    counters.hits += count;
    auto row = rows_.find(id);
    if (row != rows_.end()) hits.emplace_back(row->second, count);
  }
  for (Message& m : batch) {
    switch (m.kind) {
      case Message::Kind::kTrigger: {
        auto row = rows_.find(m.id);
        if (row != rows_.end()) triggers.triggers.push_back({row->second, {std::move(m.trigger)}});
        break;
      }
      case Message::Kind::kKernel: {
        // A plan without a row (a key collision, kept in memory only) links to nothing.
        auto row = m.has_plan ? rows_.find(m.id) : rows_.end();
        for (NewKernel& kernel : m.item.kernels) {
          kernel.plan_id =
              row != rows_.end() ? std::optional<PlanRowId>(row->second) : std::nullopt;
          triggers.kernels.push_back(std::move(kernel));
        }
        break;
      }
      case Message::Kind::kExploration:
        ++explorations;
        ++counters.misses;
        break;
      case Message::Kind::kQuarantine:
        if (!Check(repository_->Quarantine(m.row, m.reason), "quarantining a plan")) return;
        break;
      case Message::Kind::kBind:
      case Message::Kind::kPublish:
      case Message::Kind::kAdopt:
      case Message::Kind::kCheckpoint: break;
    }
  }
  if (!triggers.triggers.empty() || !triggers.kernels.empty()) {
    PublishResult ignored;
    if (!Check(repository_->Publish(triggers, &ignored), "appending triggers and kernels")) return;
  }
  if (!hits.empty() && !Check(repository_->RecordHitCounts(hits, workload_), "recording hits")) {
    return;
  }
  if (explorations > 0) {
    int64_t count = 0;
    if (!Check(repository_->AddExplorations(workload_, explorations, &count),
               "counting explorations")) {
      return;
    }
  }
  if (counters.hits + counters.misses + counters.unfused_runs > 0) {
    if (!Check(repository_->AddCounters(workload_, counters), "updating the workload")) return;
  }
  // Last, after everything it follows in the batch is committed.
  if (std::any_of(batch.begin(), batch.end(),
                  [](const Message& m) { return m.kind == Message::Kind::kCheckpoint; })) {
    Check(repository_->Checkpoint(), "checkpointing");
  }
}

}  // namespace ember
