#include "store/postgres/pg_sql_session.h"

#include <fmt/format.h>

#include <cctype>
#include <type_traits>

namespace ember {

namespace {

pg::Params ToParams(std::span<const SqlValue> args) {
  pg::Params params;
  for (const SqlValue& arg : args) {
    std::visit(
        [&](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, std::monostate>) {
            params.Null();
          } else if constexpr (std::is_same_v<T, int64_t>) {
            params.Int64(value);
          } else if constexpr (std::is_same_v<T, double>) {
            params.Double(value);
          } else if constexpr (std::is_same_v<T, std::string>) {
            params.Text(value);
          } else {
            params.Bytea(value);
          }
        },
        arg);
  }
  return params;
}

class ResultRow final : public SqlRow {
 public:
  explicit ResultRow(const pg::Result& result) : result_(result) {}
  void set_row(int row) { row_ = row; }
  bool IsNull(int column) const override { return result_.IsNull(row_, column); }
  int64_t Int64(int column) const override { return result_.Int64(row_, column); }
  double Double(int column) const override { return result_.Double(row_, column); }
  std::string Text(int column) const override { return result_.Text(row_, column); }
  std::vector<uint8_t> Blob(int column) const override { return result_.Bytea(row_, column); }

 private:
  const pg::Result& result_;
  int row_ = 0;
};

}  // namespace

std::string PostgresPlaceholders(std::string_view sql) {
  std::string out;
  out.reserve(sql.size());
  char quote = 0;  // the quote character of the literal or identifier we are inside
  for (size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (quote != 0) {
      if (c == quote) quote = 0;  // a doubled quote closes and reopens: same result
      out += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      out += c;
    } else if (c == '?' && i + 1 < sql.size() &&
               std::isdigit(static_cast<unsigned char>(sql[i + 1]))) {
      out += '$';
    } else {
      out += c;
    }
  }
  return out;
}

Status PgSqlSession::Query(std::string_view sql, std::span<const SqlValue> args,
                           std::string_view what, const std::function<void(const SqlRow&)>& row) {
  pg::Result result;
  if (Status s = conn_.Exec(PostgresPlaceholders(sql), ToParams(args), what, &result); !s.ok()) {
    return s;
  }
  ResultRow current(result);
  for (int r = 0; r < result.rows(); ++r) {
    current.set_row(r);
    row(current);
  }
  if (Status s = result.CheckTypes(); !s.ok()) {
    return Status::Corruption(
        fmt::format("plan database {}: {}: {}", conn_.location(), what, s.message()));
  }
  return Status::Ok();
}

Status PgSqlSession::Exec(std::string_view sql, std::span<const SqlValue> args,
                          std::string_view what, int64_t* changes) {
  pg::Result result;
  if (Status s = conn_.Exec(PostgresPlaceholders(sql), ToParams(args), what, &result); !s.ok()) {
    return s;
  }
  if (changes != nullptr) *changes = result.affected();
  return Status::Ok();
}

Status PgSqlSession::ReadTransaction(std::string_view what, const std::function<Status()>& body) {
  return conn_.Transaction(what, [&]() -> Status {
    if (Status s = conn_.Exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", what);
        !s.ok()) {
      return s;
    }
    return body();
  });
}

Status PgSqlSession::WriteTransaction(std::string_view what, const std::function<Status()>& body) {
  return conn_.Transaction(what, body);
}

Status PgSqlSession::StoredBytes(int64_t* out) {
  return QueryInt64(
      *this,
      "SELECT CAST(COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS BIGINT) FROM pg_class c "
      "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'r' AND "
      "n.nspname = current_schema() AND c.relname IN ('schema_migrations', 'ember_application', "
      "'environments', 'plans', 'triggers', 'workloads', 'plan_usage', 'kernels', "
      "'plan_kernels')",
      {}, "measuring the plan store's tables", out);
}

}  // namespace ember
