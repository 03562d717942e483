#include "store/database_reader.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "engine/core/log.h"
#include "engine/core/plan_db_location.h"
#include "store/repository/plan_writer.h"

namespace ember {

Status DatabaseReader::Open(const PlanDbOptions& options, const EnvironmentFingerprint& environment,
                            size_t rows_per_read) {
  path_ = options.path;
  rows_per_read_ = rows_per_read;
  if (Status s = PlanRepository::Open(options, &repository_); !s.ok()) return s;
  return repository_->EnsureEnvironment(environment, &environment_);
}

void DatabaseReader::Listen() {
  std::unique_ptr<PlanChangeFeed> feed;
  if (Status s = repository_->OpenChangeFeed(&feed); !s.ok()) {
    Warn("plan-db-feed:" + path_,
         fmt::format("plan database {}: plans other hosts publish are seen only when a first op "
                     "is first met, not while this process runs ({})",
                     ShownLocation(path_), s.ToString()));
  } else if (feed != nullptr) {
    listener_ = std::make_unique<PlanChangeListener>(std::move(feed), environment_,
                                                     repository_->location());
  }
}

std::string DatabaseReader::where() const {
  return repository_ != nullptr ? repository_->location() : "the database";
}

PlanRepository* DatabaseReader::Current() { return failed_ || down_ ? nullptr : repository_.get(); }

PlanRepository* DatabaseReader::WritableNow() {
  if (failed_ || repository_ == nullptr || !repository_->writable() || !Up()) return nullptr;
  return repository_.get();
}

bool DatabaseReader::Up() {
  if (!down_) return true;
  if (std::chrono::steady_clock::now() < retry_at_) return false;
  if (repository_->Reconnect().ok()) {
    down_ = false;
    return true;
  }
  backoff_ = std::min(backoff_ * 2, PlanWriter::kMaxRetry);
  retry_at_ = std::chrono::steady_clock::now() + backoff_;
  return false;
}

Status DatabaseReader::Read(uint64_t hash, LoadedPlans* loaded) {
  // Stopped, closed at exit, or a server out of reach for now.
  if (failed_ || repository_ == nullptr || !Up()) {
    return Status::Unavailable("the database is not read now");
  }
  Status s = repository_->LoadPlansByFirstOp(environment_, hash, loaded, rows_per_read_);
  if (!s.ok()) OnReadFailure(s);
  return s;
}

void DatabaseReader::OnReadFailure(const Status& s) {
  if (repository_->IsTransient(s)) {
    down_ = true;
    backoff_ = PlanWriter::kFirstRetry;
    retry_at_ = std::chrono::steady_clock::now() + backoff_;
    Warn("plan-db-read-unreachable:" + repository_->location(),
         fmt::format("reading plans failed ({}); segments explore meanwhile, and reads "
                     "resume when the database is back",
                     s.ToString()));
  } else {
    failed_ = true;
    Warn("plan-db-read:" + repository_->location(),
         fmt::format("reading plans failed ({}); stored plans are not used from now on, "
                     "segments explore instead",
                     s.ToString()));
  }
}

void DatabaseReader::Watch(uint64_t hash) {
  if (listener_ != nullptr) synced_[hash] = listener_->Watch(hash);
}

bool DatabaseReader::ReadChanges(uint64_t hash, const std::function<bool(const Hash128&)>& known,
                                 LoadedPlans* loaded) {
  auto synced = synced_.find(hash);
  if (synced == synced_.end()) return false;  // (never read: its first read reads it all)
  PlanChangeListener::Pending pending = listener_->Take(hash, synced->second);
  bool read = pending.resync || pending.triggers;
  for (const Hash128& key : pending.plans) read = read || !known(key);
  if (!read) {
    synced->second = pending.epoch;
    return false;
  }
  if (!Read(hash, loaded).ok()) {
    // Asked again at a later segment (while reads pause, or never once they stopped).
    if (!failed_) listener_->Requeue(hash, std::move(pending));
    return false;
  }
  synced->second = pending.epoch;
  return true;
}

}  // namespace ember
