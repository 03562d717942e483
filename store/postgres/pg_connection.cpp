#include "store/postgres/pg_connection.h"

#include <fmt/format.h>

#include <bit>
#include <chrono>
#include <cstring>
#include <random>
#include <thread>

#include "engine/core/plan_db_location.h"
#include "engine/core/printable.h"
#include "store/postgres/libpq_api.h"

namespace ember::pg {
namespace {

// Type oids from PostgreSQL's catalog (src/include/catalog/pg_type.dat); stable across versions.
constexpr unsigned kInt8 = 20;
constexpr unsigned kText = 25;
constexpr unsigned kFloat8 = 701;
constexpr unsigned kBytea = 17;

std::string BigEndian(uint64_t v) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(v >> (56 - 8 * i));
  return out;
}

uint64_t FromBigEndian(const char* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

// libpq's messages end with a newline; ours do not.
std::string Trimmed(const char* message) {
  std::string s = message != nullptr ? message : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

void IgnoreNotice(void*, const char*) {}

}  // namespace

// --- Params ----------------------------------------------------------------------------------

Params& Params::Add(unsigned type, std::string bytes, int format, bool null) {
  types_.push_back(type);
  values_.push_back(std::move(bytes));
  formats_.push_back(format);
  nulls_.push_back(null);
  return *this;
}

Params& Params::Int64(int64_t value) {
  return Add(kInt8, BigEndian(static_cast<uint64_t>(value)), 1);
}
Params& Params::Double(double value) {
  return Add(kFloat8, BigEndian(std::bit_cast<uint64_t>(value)), 1);
}
Params& Params::Text(std::string_view value) { return Add(kText, std::string(value), 1); }
Params& Params::Bytea(std::span<const uint8_t> value) {
  return Add(kBytea, std::string(reinterpret_cast<const char*>(value.data()), value.size()), 1);
}
Params& Params::NullInt64() { return Add(kInt8, std::string(), 1, true); }
// Type 0: the server infers it from where the parameter stands.
Params& Params::Null() { return Add(0, std::string(), 1, true); }

// --- Result ----------------------------------------------------------------------------------

Result::~Result() {
  if (result_ != nullptr) api_->clear(result_);
}
Result::Result(Result&& other) noexcept
    : api_(other.api_),
      result_(std::exchange(other.result_, nullptr)),
      type_error_(std::move(other.type_error_)) {}
Result& Result::operator=(Result&& other) noexcept {
  if (this != &other) {
    if (result_ != nullptr) api_->clear(result_);
    api_ = other.api_;
    result_ = std::exchange(other.result_, nullptr);
    type_error_ = std::move(other.type_error_);
  }
  return *this;
}

int Result::rows() const { return result_ == nullptr ? 0 : api_->ntuples(result_); }

int64_t Result::affected() const {
  if (result_ == nullptr) return 0;
  const char* n = api_->cmdTuples(result_);
  return n == nullptr || *n == '\0' ? 0 : std::strtoll(n, nullptr, 10);
}

bool Result::IsNull(int row, int column) const {
  return api_->getisnull(result_, row, column) != 0;
}

int64_t Result::Int64(int row, int column) const {
  if (IsNull(row, column)) return 0;
  const int n = api_->getlength(result_, row, column);
  if (n != 8 && n != 4 && n != 2) {
    type_error_ = fmt::format("column {} has {} bytes where an integer was expected", column, n);
    return 0;
  }
  const uint64_t raw = FromBigEndian(api_->getvalue(result_, row, column), n);
  // Narrower integers are sign-extended from their width.
  const int shift = 64 - 8 * n;
  return static_cast<int64_t>(raw << shift) >> shift;
}

double Result::Double(int row, int column) const {
  if (IsNull(row, column)) return 0;
  if (api_->getlength(result_, row, column) != 8) {
    type_error_ = fmt::format("column {} is not a DOUBLE PRECISION", column);
    return 0;
  }
  return std::bit_cast<double>(FromBigEndian(api_->getvalue(result_, row, column), 8));
}

std::string Result::Text(int row, int column) const {
  if (IsNull(row, column)) return "";
  return std::string(api_->getvalue(result_, row, column),
                     static_cast<size_t>(api_->getlength(result_, row, column)));
}

std::vector<uint8_t> Result::Bytea(int row, int column) const {
  if (IsNull(row, column)) return {};
  const auto* p = reinterpret_cast<const uint8_t*>(api_->getvalue(result_, row, column));
  return std::vector<uint8_t>(p, p + api_->getlength(result_, row, column));
}

Status Result::CheckTypes() const {
  if (type_error_.empty()) return Status::Ok();
  return Status::Corruption("unexpected column type: " + type_error_);
}

// --- Connection ------------------------------------------------------------------------------

Status Connection::Open(const std::string& uri, std::unique_ptr<Connection>* out) {
  out->reset();
  const std::string location = RedactedUri(uri);
  std::string why;
  const LibPq* api = LoadLibPq(&why);
  if (api == nullptr) {
    return Status::Unavailable(fmt::format("plan database {}: {}", location, why));
  }
  pg_conn* conn = api->connectdb(uri.c_str());
  if (conn == nullptr || api->status(conn) != CONNECTION_OK) {
    // libpq quotes a malformed URI whole, or the token it could not read (Note [Reading a URI
    // as libpq does]): never shown unredacted.
    std::string reason =
        conn == nullptr
            ? "out of memory"
            : PrintableLines(RedactedText(Trimmed(api->errorMessage(conn)), uri, UriSecrets(uri)));
    if (conn != nullptr) api->finish(conn);
    return Status::Unavailable(
        fmt::format("plan database {}: cannot connect: {}", location, reason));
  }
  api->setNoticeProcessor(conn, IgnoreNotice, nullptr);
  out->reset(new Connection(api, conn, uri));
  // Plans are compared and hashed as bytes; the session's own settings never matter, except
  // that a statement must not wait forever on a lock another host holds.
  return (*out)->ExecScript("SET client_min_messages = warning; SET lock_timeout = '30s'",
                            "configuring the session");
}

Connection::Connection(const LibPq* api, pg_conn* conn, const std::string& uri)
    : api_(api), conn_(conn), location_(RedactedUri(uri)), uri_(uri), secrets_(UriSecrets(uri)) {}

std::string Connection::Shown(const char* message) const {
  return PrintableLines(RedactedText(Trimmed(message), uri_, secrets_));
}

Connection::~Connection() {
  if (conn_ != nullptr) api_->finish(conn_);
}

bool Connection::healthy() const { return api_->status(conn_) == CONNECTION_OK; }

Status Connection::Check(pg_result* result, std::string_view what, Result* out) {
  const ExecStatusType status = result == nullptr ? PGRES_FATAL_ERROR : api_->resultStatus(result);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
    last_sqlstate_.clear();
    if (out != nullptr) {
      *out = Result();
      out->api_ = api_;
      out->result_ = result;
    } else {
      api_->clear(result);
    }
    return Status::Ok();
  }
  const char* state = result != nullptr ? api_->resultErrorField(result, PG_DIAG_SQLSTATE) : "";
  last_sqlstate_ = state != nullptr ? state : "";
  std::string message = result != nullptr ? Shown(api_->resultErrorMessage(result)) : "";
  if (message.empty()) message = Shown(api_->errorMessage(conn_));
  if (result != nullptr) api_->clear(result);
  const std::string text =
      fmt::format("plan database {}: {} failed: {}{}", location_, what, message,
                  last_sqlstate_.empty() ? "" : " (SQLSTATE " + last_sqlstate_ + ")");
  // Class 08: connection exceptions; and a connection libpq has already seen die.
  if (!healthy() || last_sqlstate_.starts_with("08")) return Status::Unavailable(text);
  return Status::IoError(text);
}

Status Connection::Exec(std::string_view sql, const Params& params, std::string_view what,
                        Result* out) {
  std::vector<const char*> values(params.values_.size());
  std::vector<int> lengths(params.values_.size());
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = params.nulls_[i] ? nullptr : params.values_[i].data();
    lengths[i] = static_cast<int>(params.values_[i].size());
  }
  const std::string text(sql);
  pg_result* result = api_->execParams(conn_, text.c_str(), params.size(), params.types_.data(),
                                       values.data(), lengths.data(), params.formats_.data(),
                                       /*resultFormat=*/1);
  return Check(result, what, out);
}

Status Connection::ExecScript(std::string_view sql, std::string_view what) {
  const std::string text(sql);
  return Check(api_->exec(conn_, text.c_str()), what, nullptr);
}

int Connection::socket() const { return api_->socket(conn_); }

Status Connection::TakeNotifications(std::vector<Notification>* out) {
  if (api_->consumeInput(conn_) == 0 || !healthy()) {
    return Status::Unavailable(fmt::format("plan database {}: listening for changes failed: {}",
                                           location_, Shown(api_->errorMessage(conn_))));
  }
  while (PGnotify* n = api_->notifies(conn_)) {
    out->push_back({n->relname != nullptr ? n->relname : "", n->extra != nullptr ? n->extra : ""});
    api_->freemem(n);
  }
  return Status::Ok();
}

Status Connection::Transaction(std::string_view what, const std::function<Status()>& body) {
  constexpr int kAttempts = 6;
  std::minstd_rand jitter(std::random_device{}());
  for (int attempt = 1;; ++attempt) {
    if (Status s = ExecScript("BEGIN", what); !s.ok()) return s;
    Status s;
    try {
      s = body();
    } catch (const std::exception& e) {
      s = Status::IoError(
          fmt::format("plan database {}: {} failed: {}", location_, what, e.what()));
    }
    if (s.ok()) s = ExecScript("COMMIT", what);
    if (s.ok()) return s;
    const std::string state = last_sqlstate_;
    if (healthy()) ExecScript("ROLLBACK", what);
    const bool retry = state == "40001" || state == "40P01";
    if (!retry || attempt == kAttempts) return s;
    const int ms = (1 << attempt) + static_cast<int>(jitter() % 5);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }
}

}  // namespace ember::pg
