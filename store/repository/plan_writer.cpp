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

void PlanWriter::Count(std::optional<PlanId> hit, WorkloadMiss* miss) {
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    // Counters wait for company or for kCounterDelay (Note [Write-behind]): only the first of
    // a run wakes the writer, which then sleeps until the delay is over.
    const bool first_pending = enqueued_ == applied_;
    if (first_pending) counters_since_ = std::chrono::steady_clock::now();
    ++enqueued_;
    ++pending_.count;
    if (miss != nullptr) {
      auto [it, added] = pending_.misses.try_emplace(miss->pattern, WorkloadMiss{});
      WorkloadMiss& into = it->second;
      const int64_t count = into.count + miss->count;
      std::vector<int64_t> values = std::move(into.values);
      // The batch's first explanation is the one a new row keeps as its first (set here on the
      // pattern's first Count, so a later one finds it).
      std::string first = added ? miss->detail : std::move(into.first_detail);
      for (const int64_t v : miss->values) {
        if (values.size() < WorkloadMiss::kMaxMissValues &&
            std::find(values.begin(), values.end(), v) == values.end()) {
          values.push_back(v);
        }
      }
      into = std::move(*miss);  // the latest detail and nearest plan
      into.count = count;
      into.values = std::move(values);
      into.first_detail = std::move(first);
    } else if (hit) {
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
void PlanWriter::Exploration(bool counted) {
  Enqueue({.kind = Message::Kind::kExploration, .counted = counted});
}
void PlanWriter::UnfusedRun() { Count(std::nullopt); }
void PlanWriter::Miss(WorkloadMiss miss) {
  miss.count = 1;
  Count(std::nullopt, &miss);
}
void PlanWriter::Quarantine(PlanRowId row, std::string reason) {
  Enqueue({.kind = Message::Kind::kQuarantine, .row = row, .reason = std::move(reason)});
}
void PlanWriter::Fact(DeviceFact fact) {
  Enqueue({.kind = Message::Kind::kFact, .fact = std::move(fact)});
}
void PlanWriter::Recipe(GraphRecipeRow recipe) {
  Enqueue({.kind = Message::Kind::kRecipe, .recipe = std::move(recipe)});
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
    auto work = [&] { return stop_ || !queue_.empty() || pending_.count > 0; };
    if (held_.empty()) {
      work_cv_.wait(lock, work);
    } else if (!work_cv_.wait_until(lock, retry_at_, work)) {
      lock.unlock();
      RetryHeld();
      lock.lock();
      continue;
    }
    // Anything but counters, a Flush or the stop goes at once; counters alone wait their delay.
    auto ready = [&] { return stop_ || durable_ > applied_ || flushing_ > 0; };
    if (!ready()) work_cv_.wait_until(lock, counters_since_ + kCounterDelay, ready);
    if (queue_.empty() && pending_.count == 0 && stop_) {
      if (held_.empty()) return;
      lock.unlock();
      RetryHeld();  // one last try before the process goes
      if (!held_.empty()) {
        Warn("plan-db-held-lost:" + repository_->location(),
             fmt::format("plan database {}: still out of reach at exit; {} held write(s) are "
                         "lost (the next run explores those plans again)",
                         repository_->location(), held_messages_));
      }
      return;
    }
    std::vector<Message> batch(std::make_move_iterator(queue_.begin()),
                               std::make_move_iterator(queue_.end()));
    queue_.clear();
    Counters counters = std::exchange(pending_, Counters{});
    const uint64_t taken = batch.size() + counters.count;
    lock.unlock();
    if (!failed_.load()) Take(std::move(batch), std::move(counters));
    lock.lock();
    applied_ += taken;
    done_cv_.notify_all();
  }
}

bool PlanWriter::Check(const Status& status, const char* what, bool fatal) {
  if (status.ok()) return true;
  if (repository_->IsTransient(status)) {
    transient_ = true;
    transient_reason_ = status.ToString();
    return false;
  }
  // The database itself failed (Note [Write-behind]): a batch after this one would too.
  fatal = fatal || status.code() == Status::Code::kCorruption ||
          status.code() == Status::Code::kUnavailable;
  if (!fatal) {
    const std::string& path = repository_->location();
    Warn("plan-db-batch:" + path,
         fmt::format("plan database {}: {} failed ({}); the plans and counts of that write are "
                     "lost, later ones are still written; plans committed before are kept",
                     path, what, status.ToString()));
    return false;
  }
  if (!failed_.exchange(true)) {
    const std::string& path = repository_->location();
    Warn("plan-db-write:" + path,
         fmt::format("plan database {}: {} failed ({}); plans found from now on are not stored "
                     "(the next run explores them again), plans committed before are kept",
                     path, what, status.ToString()));
  }
  return false;
}

bool PlanWriter::CheckCounter(const Status& status, const char* what) {
  if (Check(status, what)) return true;
  return !transient_ && !failed_.load();
}

void PlanWriter::Remember(PlanId id, const PublishItem& item) {
  PublishItem& kept = items_[id];
  kept.plan = item.plan;
  kept.triggers = item.triggers;
}

PublishItem* PlanWriter::Remembered(PlanId id, PlanRowId row) {
  if (auto known = items_.find(id); known != items_.end()) return &known->second;
  std::optional<PublishItem> read;
  if (Status s = repository_->ReadPlanItem(row, &read); !s.ok()) {
    if (repository_->IsTransient(s)) {
      transient_ = true;
      transient_reason_ = s.ToString();
    }
    return nullptr;
  }
  if (!read.has_value()) return nullptr;
  return &items_.emplace(id, std::move(*read)).first->second;
}

bool PlanWriter::Republish(std::span<const size_t> gone, std::span<const PlanId> appends) {
  PublishBatch again{.environment_id = environment_};
  std::vector<PlanId> ids;
  for (const size_t i : gone) {
    const PlanId id = appends[i];
    auto item = items_.find(id);
    if (item == items_.end() || std::find(ids.begin(), ids.end(), id) != ids.end()) continue;
    again.plans.push_back(item->second);
    ids.push_back(id);
  }
  if (ids.empty()) return true;
  PublishResult result;
  if (!Check(repository_->Publish(again, &result), "publishing removed plans again")) return false;
  for (size_t i = 0; i < ids.size(); ++i) {
    const InsertResult& r = result.plans[i];
    if (r.outcome == InsertOutcome::kKeyCollision) continue;
    LogFusion(LogLevel::kMedium, [&] {
      return fmt::format("[store] plan row {} was removed while in use (gc); stored it again as {}",
                         rows_[ids[i]], r.plan_id);
    });
    rows_[ids[i]] = r.plan_id;
  }
  return true;
}

PlanWriter::Outcome PlanWriter::Apply(const std::vector<Message>& batch, const Counters& counted,
                                      Progress& progress) {
  transient_ = false;
  const auto stopped = [&] { return transient_ ? Outcome::kHeld : Outcome::kFailed; };
  // A SQLite file moved away from its path (SqlitePlanRepository::CheckBeforeWriting).
  if (Status moved = repository_->CheckBeforeWriting(); !moved.ok()) {
    Check(moved, "writing", /*fatal=*/true);
    return stopped();
  }
  // Bindings first: everything later in the batch may refer to a loaded plan.
  for (const Message& m : batch) {
    if (m.kind == Message::Kind::kBind) rows_[m.id] = m.row;
  }
  // Adopted plans whose row exists are only bound: a read, no write transaction. The batch
  // is read, never changed: a held batch is applied again as it was (Note [Write-behind]).
  std::vector<const Message*> adopted_new;
  for (const Message& m : batch) {
    if (m.kind != Message::Kind::kAdopt) continue;
    std::optional<PlanRowId> row;
    if (!Check(repository_->FindPlanByKey(environment_, m.item.plan.plan_key, &row),
               "finding an adopted plan")) {
      return stopped();
    }
    if (row.has_value()) {
      rows_[m.id] = *row;
    } else {
      adopted_new.push_back(&m);
    }
    Remember(m.id, m.item);
  }
  // New plans, with the triggers they were found with, in one transaction.
  PublishBatch publish{.environment_id = environment_};
  std::vector<PlanId> published_ids;
  for (const Message& m : batch) {
    const bool adopted = std::find(adopted_new.begin(), adopted_new.end(), &m) != adopted_new.end();
    if (m.kind != Message::Kind::kPublish && !adopted) continue;
    publish.plans.push_back(m.item);
    published_ids.push_back(m.id);
    if (m.kind == Message::Kind::kPublish) Remember(m.id, m.item);
  }
  if (!publish.plans.empty()) {
    PublishResult result;
    if (!Check(repository_->Publish(publish, &result), "publishing plans")) return stopped();
    for (size_t i = 0; i < published_ids.size(); ++i) {
      const InsertResult& r = result.plans[i];
      if (r.outcome == InsertOutcome::kKeyCollision) continue;  // in memory only
      rows_[published_ids[i]] = r.plan_id;
      // kExisting: another process was first; its row keeps the triggers found here too
      // (merged in the same transaction, PlanRepository::Publish).
      if (r.outcome != InsertOutcome::kExisting) published_.fetch_add(1);
    }
  }
  // Triggers, hits and workload counters. Every hit counted before this batch was taken is of
  // a plan whose Bind or Publish was enqueued before the hit, so is in rows_ by now (or never:
  // a key collision kept in memory only).
  PublishBatch triggers{.environment_id = environment_};
  std::vector<PlanId> appended;  // the plan of each triggers.triggers entry
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
  for (const Message& m : batch) {
    switch (m.kind) {
      case Message::Kind::kTrigger: {
        auto row = rows_.find(m.id);
        if (row == rows_.end()) break;  // a key collision, kept in memory only
        // By key where the plan is remembered (Note [Plans gc removed]); else by its row id,
        // which is never another plan's.
        PublishItem* item = Remembered(m.id, row->second);
        if (transient_) return stopped();
        std::optional<Hash128> key;
        if (item != nullptr) {
          key = item->plan.plan_key;
          auto& known = item->triggers;
          if (std::find(known.begin(), known.end(), m.trigger) == known.end()) {
            known.push_back(m.trigger);
          }
        }
        triggers.triggers.push_back({row->second, {m.trigger}, key});
        appended.push_back(m.id);
        break;
      }
      case Message::Kind::kKernel: {
        // A plan without a row (a key collision, kept in memory only) links to nothing.
        auto row = m.has_plan ? rows_.find(m.id) : rows_.end();
        for (const NewKernel& kernel : m.item.kernels) {
          triggers.kernels.push_back(kernel);
          triggers.kernels.back().plan_id =
              row != rows_.end() ? std::optional<PlanRowId>(row->second) : std::nullopt;
        }
        break;
      }
      case Message::Kind::kExploration:
        if (!m.counted) ++explorations;
        ++counters.misses;
        break;
      case Message::Kind::kQuarantine: {
        // A row gone meanwhile (gc, `quarantine clear`) needs no quarantine.
        const Status q = repository_->Quarantine(m.row, m.reason);
        if (q.code() != Status::Code::kNotFound && !Check(q, "quarantining a plan")) {
          return stopped();
        }
        break;
      }
      case Message::Kind::kBind:
      case Message::Kind::kPublish:
      case Message::Kind::kAdopt:
      case Message::Kind::kCheckpoint:
      case Message::Kind::kFact:
      case Message::Kind::kRecipe: break;
    }
  }
  if (!triggers.triggers.empty() || !triggers.kernels.empty()) {
    PublishResult result;
    if (!Check(repository_->Publish(triggers, &result), "appending triggers and kernels") ||
        !Republish(result.plans_gone, appended)) {
      return stopped();
    }
  }
  // Counted once each, also when the batch is applied again after a retry.
  if (!progress.hits && !hits.empty() &&
      !CheckCounter(repository_->RecordHitCounts(hits, workload_), "recording hits")) {
    return stopped();
  }
  progress.hits = true;
  if (!progress.explorations && explorations > 0) {
    int64_t count = 0;
    if (!CheckCounter(repository_->AddExplorations(workload_, explorations, &count),
                      "counting explorations")) {
      return stopped();
    }
  }
  progress.explorations = true;
  if (!progress.counters && counters.hits + counters.misses + counters.unfused_runs > 0) {
    if (!CheckCounter(repository_->AddCounters(workload_, counters), "updating the workload")) {
      return stopped();
    }
  }
  progress.counters = true;
  if (!progress.misses && !counted.misses.empty()) {
    std::vector<WorkloadMiss> misses;
    for (const auto& [pattern, miss] : counted.misses) misses.push_back(miss);
    if (!CheckCounter(repository_->RecordMisses(workload_, misses), "recording misses")) {
      return stopped();
    }
  }
  progress.misses = true;
  for (const Message& m : batch) {
    if (m.kind == Message::Kind::kFact &&
        !CheckCounter(repository_->PutDeviceFact(environment_, m.fact), "storing a device fact")) {
      return stopped();
    }
    if (m.kind == Message::Kind::kRecipe &&
        !CheckCounter(repository_->PutGraphRecipe(environment_, m.recipe.workload, m.recipe.recipe),
                      "storing a graph recipe")) {
      return stopped();
    }
  }
  // Last, after everything it follows in the batch is committed.
  if (std::any_of(batch.begin(), batch.end(),
                  [](const Message& m) { return m.kind == Message::Kind::kCheckpoint; })) {
    Check(repository_->Checkpoint(), "checkpointing");
  }
  return Outcome::kApplied;
}

}  // namespace ember
