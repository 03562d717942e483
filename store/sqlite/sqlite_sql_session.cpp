#include "store/sqlite/sqlite_sql_session.h"

#include <type_traits>

#include "store/sqlite/sqlite_statement.h"
#include "store/sqlite/sqlite_transaction.h"

namespace ember {

namespace {

class StatementRow final : public SqlRow {
 public:
  explicit StatementRow(const SqliteStatement& stmt) : stmt_(stmt) {}
  bool IsNull(int column) const override { return stmt_.ColumnIsNull(column); }
  int64_t Int64(int column) const override { return stmt_.ColumnInt64(column); }
  double Double(int column) const override { return stmt_.ColumnDouble(column); }
  std::string Text(int column) const override { return stmt_.ColumnText(column); }
  std::vector<uint8_t> Blob(int column) const override { return stmt_.ColumnBlob(column); }

 private:
  const SqliteStatement& stmt_;
};

void Bind(SqliteStatement& stmt, std::span<const SqlValue> args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const int index = static_cast<int>(i) + 1;
    std::visit(
        [&](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, std::monostate>) {
            stmt.BindNull(index);
          } else if constexpr (std::is_same_v<T, int64_t>) {
            stmt.BindInt64(index, value);
          } else if constexpr (std::is_same_v<T, double>) {
            stmt.BindDouble(index, value);
          } else if constexpr (std::is_same_v<T, std::string>) {
            stmt.BindText(index, value);
          } else {
            stmt.BindBlob(index, value);
          }
        },
        args[i]);
  }
}

}  // namespace

Status SqliteSqlSession::Query(std::string_view sql, std::span<const SqlValue> args,
                               std::string_view what,
                               const std::function<void(const SqlRow&)>& row) {
  SqliteStatement stmt;
  if (Status s = db_.Prepare(sql, what, &stmt); !s.ok()) return s;
  Bind(stmt, args);
  const StatementRow current(stmt);
  for (;;) {
    bool has_row = false;
    if (Status s = stmt.Step(&has_row); !s.ok()) return s;
    if (!has_row) return Status::Ok();
    row(current);
  }
}

Status SqliteSqlSession::Exec(std::string_view sql, std::span<const SqlValue> args,
                              std::string_view what, int64_t* changes) {
  SqliteStatement stmt;
  if (Status s = db_.Prepare(sql, what, &stmt); !s.ok()) return s;
  Bind(stmt, args);
  if (Status s = stmt.Run(); !s.ok()) return s;
  if (changes != nullptr) *changes = db_.changes();
  return Status::Ok();
}

Status SqliteSqlSession::ReadTransaction(std::string_view what,
                                         const std::function<Status()>& body) {
  return RunTransaction(db_, TransactionKind::kRead, what, body);
}

Status SqliteSqlSession::WriteTransaction(std::string_view what,
                                          const std::function<Status()>& body) {
  return RunTransaction(db_, TransactionKind::kWrite, what, body);
}

Status SqliteSqlSession::ReadStatement(std::string_view what, const std::function<Status()>& body) {
  return RunWithBusyRetry(db_, what, body);
}

Status SqliteSqlSession::WriteStatement(std::string_view what,
                                        const std::function<Status()>& body) {
  return RunTransaction(db_, TransactionKind::kWrite, what, body);
}

Status SqliteSqlSession::StoredBytes(int64_t* out) {
  int64_t pages = 0;
  int64_t page_size = 0;
  if (Status s = QueryInt64(*this, "PRAGMA page_count", {}, "reading the page count", &pages);
      !s.ok()) {
    return s;
  }
  if (Status s = QueryInt64(*this, "PRAGMA page_size", {}, "reading the page size", &page_size);
      !s.ok()) {
    return s;
  }
  *out = pages * page_size;
  return Status::Ok();
}

}  // namespace ember
