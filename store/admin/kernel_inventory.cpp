#include "store/admin/kernel_inventory.h"

#include <fmt/format.h>

#include <functional>
#include <string_view>
#include <utility>

#include "store/sqlite/sqlite_statement.h"
#include "store/sqlite/sqlite_transaction.h"

namespace ember {

namespace {

// How a file names its kernel links and text columns (Note [Kernel links]).
struct KernelSchema {
  std::string links;  // a table (or subquery) of (plan_id, kernel_id)
  std::string name;   // column expressions of `kernels k`
  std::string source;
  std::string options;
};

Status ReadKernelSchema(SqliteDatabase& db, KernelSchema* out) {
  std::string count;
  if (Status s = db.QueryText(
          "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'plan_kernels'",
          "reading the kernel schema", &count);
      !s.ok()) {
    return s;
  }
  if (count == "1") {
    *out = {"plan_kernels", "k.name", "k.source", "k.options"};
  } else {
    *out = {"(SELECT plan_id, id AS kernel_id FROM kernels WHERE plan_id IS NOT NULL)", "''", "''",
            "''"};
  }
  return Status::Ok();
}

// Runs `stmt` to the end, calling `row` for each result row.
Status EachRow(SqliteStatement& stmt, const std::function<void()>& row) {
  for (;;) {
    bool has_row = false;
    if (Status s = stmt.Step(&has_row); !s.ok()) return s;
    if (!has_row) return Status::Ok();
    row();
  }
}

// Attaches every link of the kernels in `kernels` (sorted by id).
Status AttachLinks(SqliteDatabase& db, const KernelSchema& schema,
                   std::vector<KernelRecord>* kernels) {
  if (kernels->empty()) return Status::Ok();
  std::map<KernelRowId, size_t> index;
  for (size_t i = 0; i < kernels->size(); ++i) index[(*kernels)[i].id] = i;
  SqliteStatement stmt;
  if (Status s = db.Prepare(fmt::format("SELECT l.kernel_id, l.plan_id, p.environment_id FROM {} "
                                        "l LEFT JOIN plans p ON p.id = l.plan_id "
                                        "ORDER BY l.kernel_id, l.plan_id",
                                        schema.links),
                            "reading kernel links", &stmt);
      !s.ok()) {
    return s;
  }
  return EachRow(stmt, [&] {
    const auto it = index.find(stmt.ColumnInt64(0));
    if (it == index.end()) return;
    KernelLink link{.plan_id = stmt.ColumnInt64(1)};
    if (!stmt.ColumnIsNull(2)) link.plan_environment_id = stmt.ColumnInt64(2);
    (*kernels)[it->second].links.push_back(link);
  });
}

}  // namespace

Status ReadKernels(SqliteDatabase& db, const KernelFilter& filter, std::vector<KernelRecord>* out) {
  out->clear();
  KernelSchema schema;
  if (Status s = ReadKernelSchema(db, &schema); !s.ok()) return s;
  std::string sql = fmt::format(
      "SELECT k.id, k.environment_id, k.plan_id, k.source_hash, k.arch, k.compiler_version, {}, "
      "{}, {}, k.checksum, length(k.binary), k.created, {} FROM kernels k",
      schema.name, filter.sources ? schema.source : "''", schema.options,
      filter.binaries ? "k.binary" : "X''");
  if (filter.plan.has_value()) {
    sql +=
        fmt::format(" WHERE k.id IN (SELECT kernel_id FROM {} WHERE plan_id = ?1)", schema.links);
  }
  sql += " ORDER BY k.id";
  SqliteStatement stmt;
  if (Status s = db.Prepare(sql, "reading kernels", &stmt); !s.ok()) return s;
  if (filter.plan.has_value()) stmt.BindInt64(1, *filter.plan);
  Status s = EachRow(stmt, [&] {
    KernelRecord k;
    k.id = stmt.ColumnInt64(0);
    k.environment_id = stmt.ColumnInt64(1);
    if (!stmt.ColumnIsNull(2)) k.plan_id = stmt.ColumnInt64(2);
    k.key = {stmt.ColumnBlob(3), stmt.ColumnText(4), stmt.ColumnText(5)};
    k.text = {stmt.ColumnText(6), stmt.ColumnText(7), stmt.ColumnText(8)};
    k.checksum = stmt.ColumnInt64(9);
    k.bytes = stmt.ColumnInt64(10);
    k.created = stmt.ColumnInt64(11);
    k.binary = stmt.ColumnBlob(12);
    out->push_back(std::move(k));
  });
  if (!s.ok()) return s;
  return AttachLinks(db, schema, out);
}

Status ListKernels(SqliteDatabase& db, const KernelFilter& filter, std::vector<KernelRecord>* out) {
  return RunTransaction(db, TransactionKind::kRead, "listing kernels",
                        [&] { return ReadKernels(db, filter, out); });
}

Status CountKernelsPerPlan(SqliteDatabase& db, std::map<PlanRowId, int64_t>* out) {
  return RunTransaction(db, TransactionKind::kRead, "counting kernels", [&]() -> Status {
    out->clear();
    KernelSchema schema;
    if (Status s = ReadKernelSchema(db, &schema); !s.ok()) return s;
    SqliteStatement stmt;
    if (Status s = db.Prepare(
            fmt::format("SELECT plan_id, COUNT(*) FROM {} GROUP BY plan_id", schema.links),
            "counting kernels", &stmt);
        !s.ok()) {
      return s;
    }
    return EachRow(stmt, [&] { (*out)[stmt.ColumnInt64(0)] = stmt.ColumnInt64(1); });
  });
}

Status ReadKernelsByArch(SqlSession& sql, std::vector<KernelArchCount>* out) {
  out->clear();
  return sql.Query(
      "SELECT arch, compiler_version, COUNT(*), "
      "CAST(COALESCE(SUM(length(\"binary\")), 0) AS BIGINT) FROM kernels "
      "GROUP BY arch, compiler_version ORDER BY arch, compiler_version",
      {}, "counting kernels by architecture", [&](const SqlRow& row) {
        out->push_back({.arch = row.Text(0),
                        .compiler_version = row.Text(1),
                        .kernels = row.Int64(2),
                        .bytes = row.Int64(3)});
      });
}

std::string KernelLabel(const KernelRecord& kernel) {
  return fmt::format("kernel {} ({}, {})", kernel.id,
                     kernel.text.name.empty() ? "unnamed" : kernel.text.name, kernel.key.arch);
}

}  // namespace ember
