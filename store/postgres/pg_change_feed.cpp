#include "store/postgres/pg_change_feed.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <mutex>
#include <random>

#include "engine/core/plan_db_location.h"
#include "store/repository/column_encoding.h"

namespace ember {
namespace {

template <typename T>
bool ParseNumber(std::string_view text, T* value, int base = 10) {
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, *value, base);
  return ec == std::errc() && p == end && !text.empty();
}

}  // namespace

std::string ProcessTag() {
  // One per process, shared by its threads; redrawn in a forked child (the pid tells). Never
  // destroyed: the plan writer's last publication runs while the process exits (a device
  // released by a static destructor), after function-local statics may have been destroyed —
  // a destroyed string here put freed bytes into the NOTIFY payload, which the server refused
  // as invalid UTF-8, losing that publication.
  struct Tag {
    std::mutex mutex;
    pid_t drawn_for = 0;
    std::string text;
  };
  static Tag* const tag = new Tag();
  std::lock_guard lock(tag->mutex);
  if (tag->drawn_for != getpid()) {
    tag->drawn_for = getpid();
    std::random_device random;
    const uint64_t salt = (uint64_t{random()} << 32) | random();
    tag->text = fmt::format("{:x}.{:016x}", tag->drawn_for, salt);
  }
  return tag->text;
}

std::string PlanChangePayloadSql(char kind, std::string_view environment_id,
                                 std::string_view first_op_hash, std::string_view plan_key) {
  // The tag is hex digits and a dot: safe inside a literal.
  return fmt::format("'{} ' || {} || ' ' || {} || ' ' || encode({}, 'hex') || ' {}'", kind,
                     environment_id, first_op_hash, plan_key, ProcessTag());
}

std::optional<PlanChange> ParsePlanChange(std::string_view payload, std::string* tag) {
  constexpr int kParts = 5;
  std::string_view parts[kParts];
  for (int i = 0; i < kParts; ++i) {
    const bool last = i == kParts - 1;
    const size_t space = last ? payload.size() : payload.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    parts[i] = payload.substr(0, space);
    payload.remove_prefix(last ? space : space + 1);
  }
  if (parts[4].empty()) return std::nullopt;
  if (tag != nullptr) *tag = std::string(parts[4]);
  PlanChange change;
  if (parts[0] == "p") {
    change.kind = PlanChange::Kind::kPlan;
  } else if (parts[0] == "t") {
    change.kind = PlanChange::Kind::kTrigger;
  } else {
    return std::nullopt;
  }
  int64_t hash = 0;
  if (!ParseNumber(parts[1], &change.environment) || !ParseNumber(parts[2], &hash) ||
      parts[3].size() != 32 || !ParseNumber(parts[3].substr(0, 16), &change.plan_key.high, 16) ||
      !ParseNumber(parts[3].substr(16), &change.plan_key.low, 16)) {
    return std::nullopt;
  }
  change.first_op_hash = FromColumn(hash);
  return change;
}

Status PostgresChangeFeed::Open(const std::string& uri, std::unique_ptr<PostgresChangeFeed>* out) {
  const int wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake < 0) {
    return Status::IoError(
        fmt::format("plan database {}: eventfd: {}", RedactedUri(uri), std::strerror(errno)));
  }
  std::unique_ptr<PostgresChangeFeed> feed(new PostgresChangeFeed(uri, wake));
  if (Status s = feed->Listen(); !s.ok()) return s;
  *out = std::move(feed);
  return Status::Ok();
}

PostgresChangeFeed::~PostgresChangeFeed() {
  if (wake_ >= 0) close(wake_);
}

Status PostgresChangeFeed::Listen() {
  conn_.reset();
  std::unique_ptr<pg::Connection> conn;
  if (Status s = pg::Connection::Open(uri_, &conn); !s.ok()) return s;
  if (Status s = conn->ExecScript(fmt::format("LISTEN {}", kPlanChannel), "listening for plans");
      !s.ok()) {
    return s;
  }
  conn_ = std::move(conn);
  return Status::Ok();
}

Status PostgresChangeFeed::Reconnect() { return Listen(); }

void PostgresChangeFeed::Interrupt() {
  const uint64_t one = 1;
  // A full counter already wakes the poll; nothing else can fail here.
  [[maybe_unused]] ssize_t n = write(wake_, &one, sizeof one);
}

Status PostgresChangeFeed::Wait(std::chrono::milliseconds timeout, std::vector<PlanChange>* out) {
  if (conn_ == nullptr) return Status::Unavailable("the change feed is not connected");
  std::vector<pg::Connection::Notification> notes;
  // Notifications that came with an earlier reply are already buffered: no poll for those.
  if (Status s = conn_->TakeNotifications(&notes); !s.ok()) return s;
  if (notes.empty()) {
    pollfd fds[2] = {{conn_->socket(), POLLIN, 0}, {wake_, POLLIN, 0}};
    const int ready = poll(fds, 2, static_cast<int>(timeout.count()));
    if (ready < 0 && errno != EINTR) {
      return Status::IoError(
          fmt::format("plan database {}: poll: {}", conn_->location(), std::strerror(errno)));
    }
    if (ready > 0 && (fds[1].revents & POLLIN) != 0) {
      uint64_t count = 0;
      [[maybe_unused]] ssize_t n = read(wake_, &count, sizeof count);
    }
    if (ready > 0 && fds[0].revents != 0) {
      if (Status s = conn_->TakeNotifications(&notes); !s.ok()) return s;
    }
  }
  const std::string own = ProcessTag();
  for (const pg::Connection::Notification& note : notes) {
    if (note.channel != kPlanChannel) continue;
    std::string tag;
    std::optional<PlanChange> change = ParsePlanChange(note.payload, &tag);
    if (!change) continue;
    change->from_this_process = tag == own;
    out->push_back(*change);
  }
  return Status::Ok();
}

}  // namespace ember
