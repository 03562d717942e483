// The PostgreSQL layer under PostgresPlanRepository: a connection (RAII), typed parameters sent
// in binary, results read in binary, transactions retried on serialization failures. Nothing
// ember-specific lives here.
//
//   pg::Params p;
//   p.Int64(environment).Bytea(key);
//   pg::Result r;
//   if (Status s = conn.Exec("SELECT id FROM plans WHERE environment_id = $1 AND plan_key = $2",
//                            p, "finding a plan", &r); !s.ok()) return s;
//   if (r.rows() == 1) id = r.Int64(0, 0);
//
// Results are binary: a column must have the type its accessor reads (BIGINT for Int64,
// DOUBLE PRECISION for Double, TEXT for Text, BYTEA for Bytea); a mismatch is Corruption, never
// a misread. Errors become Status: a lost or refused connection is Unavailable, anything else
// IoError, and every message names the server without its password and the operation.
//
// Threading: one thread at a time per Connection (libpq's rule for a PGconn).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/status.h"

struct pg_conn;
struct pg_result;

namespace ember::pg {

struct LibPq;

class Params {
 public:
  Params& Int64(int64_t value);
  Params& Double(double value);
  Params& Text(std::string_view value);
  Params& Bytea(std::span<const uint8_t> value);
  Params& NullInt64();
  // NULL of whatever type the statement gives the parameter.
  Params& Null();

  int size() const { return static_cast<int>(types_.size()); }

 private:
  friend class Connection;
  Params& Add(unsigned type, std::string bytes, int format, bool null = false);

  std::vector<unsigned> types_;
  std::vector<std::string> values_;
  std::vector<int> formats_;
  std::vector<bool> nulls_;
};

class Result {
 public:
  Result() = default;
  ~Result();
  Result(Result&& other) noexcept;
  Result& operator=(Result&& other) noexcept;
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;

  int rows() const;
  // Rows an INSERT, UPDATE or DELETE touched.
  int64_t affected() const;
  bool IsNull(int row, int column) const;
  // The readers below return 0 / "" / {} for NULL; check IsNull where NULL means something.
  int64_t Int64(int row, int column) const;
  double Double(int row, int column) const;
  std::string Text(int row, int column) const;
  std::vector<uint8_t> Bytea(int row, int column) const;
  // Set by the first accessor that found a column of another width; Exec's callers check it
  // with CheckTypes.
  Status CheckTypes() const;

 private:
  friend class Connection;
  const LibPq* api_ = nullptr;
  pg_result* result_ = nullptr;
  mutable std::string type_error_;
};

class Connection {
 public:
  // Connects to `uri` (a libpq URI; PGPASSFILE, PGSERVICE, sslmode and the rest apply).
  // Unavailable when libpq is missing or the server cannot be reached, naming the redacted URI.
  static Status Open(const std::string& uri, std::unique_ptr<Connection>* out);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // The URI without its password: what messages show.
  const std::string& location() const { return location_; }
  // Whether the connection is still usable (false once the server went away).
  bool healthy() const;

  // One statement with parameters $1, $2, ... (`params` in that order); `out` gets the rows.
  Status Exec(std::string_view sql, const Params& params, std::string_view what,
              Result* out = nullptr);
  Status Exec(std::string_view sql, std::string_view what, Result* out = nullptr) {
    return Exec(sql, Params(), what, out);
  }
  // Several statements without parameters (a migration), in one round trip.
  Status ExecScript(std::string_view sql, std::string_view what);

  // Runs `body` between BEGIN and COMMIT (ROLLBACK when it fails or throws). A serialization
  // failure or deadlock (SQLSTATE 40001, 40P01) runs the whole body again, a few times, after
  // a short jittered sleep: bodies must be safe to run again (they reset their outputs).
  Status Transaction(std::string_view what, const std::function<Status()>& body);

  // --- Notifications (LISTEN/NOTIFY) ---------------------------------------------------------
  struct Notification {
    std::string channel;
    std::string payload;
  };
  // The socket to poll for readability before TakeNotifications (-1 when closed).
  int socket() const;
  // Reads what the server sent without waiting and appends the notifications received so far.
  // Unavailable when the connection is lost.
  Status TakeNotifications(std::vector<Notification>* out);

  // The SQLSTATE of the last failed statement ("" when none failed).
  const std::string& last_sqlstate() const { return last_sqlstate_; }

 private:
  Connection(const LibPq* api, pg_conn* conn, const std::string& uri);
  Status Check(pg_result* result, std::string_view what, Result* out);
  // A message of libpq's or the server's, safe to show: the URI redacted, each of its secrets
  // masked, control characters escaped (libpq quotes the URI or a token of it in some).
  std::string Shown(const char* message) const;

  const LibPq* api_;
  pg_conn* conn_;
  std::string location_;
  std::string uri_;                   // only for finding it inside messages (Shown)
  std::vector<std::string> secrets_;  // UriSecrets(uri_)
  std::string last_sqlstate_;
};

}  // namespace ember::pg
