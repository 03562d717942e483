// PostgresChangeFeed: the plan change feed (store/repository/plan_change_feed.h) of a PostgreSQL
// plan database: its own connection LISTENs on kPlanChannel, and every transaction that stores a
// plan or appends triggers sends a NOTIFY there (postgres_plan_repository.cpp), which the
// server delivers at commit and never for a rolled-back one. The payload is the change in text:
//
//   <p|t> <environment id> <first-op hash as signed BIGINT> <plan key, 32 hex digits> <process>
//
// (p: a plan stored or repaired; t: triggers appended; process: the publisher's ProcessTag, so
// that a process can tell its own publications from its neighbours'). PostgreSQL folds identical
// payloads of one transaction into one notification.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "store/postgres/pg_connection.h"
#include "store/repository/plan_change_feed.h"

namespace ember {

inline constexpr std::string_view kPlanChannel = "ember_plans";

// This process among all that share a server: its pid and a random number drawn once per
// process (a forked child draws its own), in hex.
std::string ProcessTag();

// The payload above as SQL over the given expressions (columns of a row being written, or
// parameters), with this process's tag: `kind` is 'p' or 't'.
std::string PlanChangePayloadSql(char kind, std::string_view environment_id,
                                 std::string_view first_op_hash, std::string_view plan_key);
// The change in a payload, or nullopt when it is not one (another program's NOTIFY on the
// channel is ignored). *tag (optional) gets the publisher's tag.
std::optional<PlanChange> ParsePlanChange(std::string_view payload, std::string* tag = nullptr);

class PostgresChangeFeed final : public PlanChangeFeed {
 public:
  // Connects to `uri` and LISTENs.
  static Status Open(const std::string& uri, std::unique_ptr<PostgresChangeFeed>* out);
  ~PostgresChangeFeed() override;

  Status Wait(std::chrono::milliseconds timeout, std::vector<PlanChange>* out) override;
  Status Reconnect() override;
  void Interrupt() override;

 private:
  explicit PostgresChangeFeed(std::string uri, int wake) : uri_(std::move(uri)), wake_(wake) {}
  Status Listen();

  std::string uri_;  // password included: for Reconnect only, never shown
  std::unique_ptr<pg::Connection> conn_;
  int wake_ = -1;  // an eventfd Interrupt writes to, polled beside the connection's socket
};

}  // namespace ember
