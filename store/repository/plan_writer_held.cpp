// PlanWriter while its database is out of reach (Note [Write-behind]): a batch that could not
// be written is held, in order behind the ones held before it, and the held batches are
// retried after a growing pause, reconnecting first.
#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "engine/core/log.h"
#include "store/repository/plan_writer.h"

namespace ember {

void PlanWriter::Take(std::vector<Message> batch, Counters counted) {
  if (!held_.empty()) {
    // Behind earlier held batches: in order, so that a trigger never precedes its plan.
    Hold(std::move(batch), std::move(counted), Progress{});
    if (std::chrono::steady_clock::now() >= retry_at_) RetryHeld();
    return;
  }
  Progress progress;
  if (Apply(batch, counted, progress) == Outcome::kHeld) {
    Warn("plan-db-unreachable:" + repository_->location(),
         fmt::format("plan database {}: out of reach ({}); writes are held in memory (up to {} "
                     "messages) and retried, plans are used from memory meanwhile",
                     repository_->location(), transient_reason_, kMaxHeld));
    backoff_ = kFirstRetry;
    retry_at_ = std::chrono::steady_clock::now() + backoff_;
    Hold(std::move(batch), std::move(counted), progress);
  }
}

void PlanWriter::Hold(std::vector<Message> batch, Counters counted, Progress progress) {
  // Past the bound, what only adds plans (new plans, triggers, kernels), facts or recipes is
  // dropped, counted; bindings, explorations and quarantines stay (small, and the budget must
  // stay right).
  std::vector<Message> kept;
  for (Message& m : batch) {
    const bool optional = m.kind == Message::Kind::kPublish || m.kind == Message::Kind::kAdopt ||
                          m.kind == Message::Kind::kTrigger || m.kind == Message::Kind::kKernel ||
                          m.kind == Message::Kind::kFact || m.kind == Message::Kind::kRecipe;
    if (optional && held_messages_ >= kMaxHeld) {
      dropped_.fetch_add(1);
      continue;
    }
    ++held_messages_;
    kept.push_back(std::move(m));
  }
  held_count_.store(held_messages_);
  held_.push_back({std::move(kept), std::move(counted), progress});
}

void PlanWriter::RetryHeld() {
  if (held_.empty()) return;
  const auto again_later = [&] {
    backoff_ = std::min(backoff_ * 2, kMaxRetry);
    retry_at_ = std::chrono::steady_clock::now() + backoff_;
  };
  if (Status s = repository_->Reconnect(); !s.ok()) return again_later();
  size_t written = 0;
  while (!held_.empty()) {
    Held& next = held_.front();
    const Outcome outcome = Apply(next.batch, next.counted, next.progress);
    if (outcome == Outcome::kHeld) return again_later();
    written += next.batch.size();
    held_messages_ -= next.batch.size();
    held_.pop_front();
    if (outcome == Outcome::kFailed && failed_.load()) {
      held_.clear();
      held_messages_ = 0;
      break;
    }
  }
  held_count_.store(held_messages_);
  if (failed_.load()) return;
  Warn("plan-db-reachable:" + repository_->location(),
       fmt::format("plan database {}: reachable again; wrote the {} held write(s){}",
                   repository_->location(), written,
                   dropped_.load() > 0
                       ? fmt::format(" ({} dropped while it was out of reach)", dropped_.load())
                       : std::string()));
}

}  // namespace ember
