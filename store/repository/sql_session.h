// SqlSession: plain SQL on a plan database, whichever database holds it — what the maintenance
// code (store/admin/: inventory, verification, gc, bundles) and `ember-plans` run, so that every
// command works the same on a SQLite file and on a PostgreSQL server. The engine never uses it:
// its reads and writes go through PlanRepository's methods, which keep the cross-process rules.
//
// The SQL is one dialect, the part SQLite and PostgreSQL share:
//   * parameters are written ?1, ?2, ... (SQLite's numbered form); the PostgreSQL session sends
//     them as $1, $2, ... (a `?` inside a quoted literal is left alone);
//   * integer results must be BIGINT on PostgreSQL: write CAST(SUM(x) AS BIGINT) and
//     CAST(length(b) AS BIGINT), which SQLite accepts as well; the column "binary" is quoted;
//   * INSERT ... ON CONFLICT (...) DO NOTHING and INSERT / UPDATE ... RETURNING work on both;
//     an INSERT ... SELECT followed by ON CONFLICT needs a WHERE clause (SQLite's parser).
// What differs (the size on disk, transactions) is a method of its own.
//
// Errors are Status values naming the database and `what`; nothing throws.
//
// Threading: as the connection underneath — one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/core/status.h"

namespace ember {

// One bound parameter: NULL, an integer, a double, text, or a blob.
using SqlValue = std::variant<std::monostate, int64_t, double, std::string, std::vector<uint8_t>>;

// The current row of a query. Accessors return 0 / "" / {} for NULL; check IsNull where NULL
// means something.
class SqlRow {
 public:
  virtual ~SqlRow() = default;
  virtual bool IsNull(int column) const = 0;
  virtual int64_t Int64(int column) const = 0;
  virtual double Double(int column) const = 0;
  virtual std::string Text(int column) const = 0;
  virtual std::vector<uint8_t> Blob(int column) const = 0;
};

class SqlSession {
 public:
  virtual ~SqlSession() = default;

  // "sqlite" or "postgresql".
  virtual std::string_view backend() const = 0;
  // The file's path, or the server's URI without its password: what messages name.
  virtual const std::string& location() const = 0;

  // Runs `sql` with `args` as ?1, ?2, ..., calling `row` for each result row.
  virtual Status Query(std::string_view sql, std::span<const SqlValue> args, std::string_view what,
                       const std::function<void(const SqlRow&)>& row) = 0;
  Status Query(std::string_view sql, std::initializer_list<SqlValue> args, std::string_view what,
               const std::function<void(const SqlRow&)>& row) {
    return Query(sql, std::span<const SqlValue>(args.begin(), args.size()), what, row);
  }
  // Runs a statement that returns no rows; *changes (optional) gets the rows it changed.
  virtual Status Exec(std::string_view sql, std::span<const SqlValue> args, std::string_view what,
                      int64_t* changes = nullptr) = 0;
  Status Exec(std::string_view sql, std::initializer_list<SqlValue> args, std::string_view what,
              int64_t* changes = nullptr) {
    return Exec(sql, std::span<const SqlValue>(args.begin(), args.size()), what, changes);
  }

  // Runs `body` in a read-only transaction that sees one consistent snapshot.
  virtual Status ReadTransaction(std::string_view what, const std::function<Status()>& body) = 0;
  // Runs `body` in one write transaction, committed when it returns OK and rolled back
  // otherwise. The body may run more than once (a busy file, a serialization failure on a
  // server): it must reset its outputs first.
  virtual Status WriteTransaction(std::string_view what, const std::function<Status()>& body) = 0;
  // Runs `body`, a read of one statement (or of several that need no common snapshot), outside
  // any transaction: a SQLite file runs it again while another connection holds a lock (Note
  // [Busy handling]); a server runs it once.
  virtual Status ReadStatement(std::string_view what, const std::function<Status()>& body) {
    (void)what;
    return body();
  }
  // Runs `body`, a change made by one statement (and the reads that go with it): on a SQLite
  // file in a write transaction (busy retries, the commit counter); a server commits the
  // statement by itself.
  virtual Status WriteStatement(std::string_view what, const std::function<Status()>& body) {
    (void)what;
    return body();
  }
  // What a SELECT inside a write transaction ends with to lock the rows it reads until the
  // commit: " FOR UPDATE" on a server, where writers run side by side; "" on a SQLite file,
  // whose write transaction already excludes every other writer.
  virtual std::string_view RowLockClause() const { return ""; }
  // The same, but a row another transaction holds is left out of the result instead of waited
  // for (Note [Gc beside live writers], store/admin/plan_gc.cpp): " FOR UPDATE SKIP LOCKED" on
  // a server; "" on a SQLite file, where no other transaction can hold a row meanwhile.
  virtual std::string_view SkipLockedClause() const { return ""; }

  // How much the database takes where it is stored: the SQLite file's pages (without its WAL),
  // or the server's tables of the plan store with their indexes and TOAST.
  virtual Status StoredBytes(int64_t* out) = 0;
};

// The single integer of `sql`'s first row (0 when there is no row or it is NULL).
Status QueryInt64(SqlSession& sql, std::string_view statement, std::span<const SqlValue> args,
                  std::string_view what, int64_t* out);

}  // namespace ember
