#include "store/admin/kernel_inventory.h"

#include <fmt/format.h>

#include <functional>
#include <string_view>
#include <utility>

#include "store/codec/row_checksum.h"
#include "store/repository/column_encoding.h"
#include "store/sqlite/sqlite_sql_session.h"

namespace ember {

namespace {

// How a file names its kernel links and text columns (Note [Kernel links]).
struct KernelSchema {
  std::string links;  // a table (or subquery) of (plan_id, kernel_id)
  std::string name;   // column expressions of `kernels k`
  std::string source;
  std::string options;
};

Status ReadKernelSchema(SqlSession& sql, KernelSchema* out) {
  // A server's schema starts at the version that added plan_kernels (migrations/postgres/).
  int64_t count = 1;
  if (sql.backend() == "sqlite") {
    if (Status s = QueryInt64(
            sql,
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'plan_kernels'", {},
            "reading the kernel schema", &count);
        !s.ok()) {
      return s;
    }
  }
  if (count == 1) {
    *out = {"plan_kernels", "k.name", "k.source", "k.options"};
  } else {
    *out = {"(SELECT plan_id, id AS kernel_id FROM kernels WHERE plan_id IS NOT NULL)", "''", "''",
            "''"};
  }
  return Status::Ok();
}

// Attaches every link of the kernels in `kernels` (sorted by id).
Status AttachLinks(SqlSession& sql, const KernelSchema& schema,
                   std::vector<KernelRecord>* kernels) {
  if (kernels->empty()) return Status::Ok();
  std::map<KernelRowId, size_t> index;
  for (size_t i = 0; i < kernels->size(); ++i) index[(*kernels)[i].id] = i;
  return sql.Query(fmt::format("SELECT l.kernel_id, l.plan_id, p.environment_id FROM {} "
                               "l LEFT JOIN plans p ON p.id = l.plan_id "
                               "ORDER BY l.kernel_id, l.plan_id",
                               schema.links),
                   {}, "reading kernel links", [&](const SqlRow& row) {
                     const auto it = index.find(row.Int64(0));
                     if (it == index.end()) return;
                     KernelLink link{.plan_id = row.Int64(1)};
                     if (!row.IsNull(2)) link.plan_environment_id = row.Int64(2);
                     (*kernels)[it->second].links.push_back(link);
                   });
}

}  // namespace

Status ReadKernels(SqlSession& sql, const KernelFilter& filter, std::vector<KernelRecord>* out) {
  out->clear();
  KernelSchema schema;
  if (Status s = ReadKernelSchema(sql, &schema); !s.ok()) return s;
  // substr(b, 1, 0): an empty blob in both dialects (X'' is a bit string to PostgreSQL).
  std::string query = fmt::format(
      "SELECT k.id, k.environment_id, k.plan_id, k.source_hash, k.arch, k.compiler_version, {}, "
      "{}, {}, k.checksum, CAST(length(k.\"binary\") AS BIGINT), k.created, {} FROM kernels k",
      schema.name, filter.sources ? schema.source : "''", schema.options,
      filter.binaries ? "k.\"binary\"" : "substr(k.\"binary\", 1, 0)");
  std::vector<SqlValue> args;
  if (filter.plan.has_value()) {
    query +=
        fmt::format(" WHERE k.id IN (SELECT kernel_id FROM {} WHERE plan_id = ?1)", schema.links);
    args.emplace_back(int64_t{*filter.plan});
  }
  query += " ORDER BY k.id";
  Status s = sql.Query(query, args, "reading kernels", [&](const SqlRow& row) {
    KernelRecord k;
    k.id = row.Int64(0);
    k.environment_id = row.Int64(1);
    if (!row.IsNull(2)) k.plan_id = row.Int64(2);
    k.key = {row.Blob(3), row.Text(4), row.Text(5)};
    k.text = {row.Text(6), row.Text(7), row.Text(8)};
    k.checksum = row.Int64(9);
    k.bytes = row.Int64(10);
    k.created = row.Int64(11);
    k.binary = row.Blob(12);
    out->push_back(std::move(k));
  });
  if (!s.ok()) return s;
  return AttachLinks(sql, schema, out);
}

Status ReadKernels(SqliteDatabase& db, const KernelFilter& filter, std::vector<KernelRecord>* out) {
  SqliteSqlSession sql(db);
  return ReadKernels(sql, filter, out);
}

Status ListKernels(SqlSession& sql, const KernelFilter& filter, std::vector<KernelRecord>* out) {
  return sql.ReadTransaction("listing kernels", [&] { return ReadKernels(sql, filter, out); });
}

Status ListKernels(SqliteDatabase& db, const KernelFilter& filter, std::vector<KernelRecord>* out) {
  SqliteSqlSession sql(db);
  return ListKernels(sql, filter, out);
}

Status CountKernelsPerPlan(SqlSession& sql, std::map<PlanRowId, int64_t>* out) {
  return sql.ReadTransaction("counting kernels", [&]() -> Status {
    out->clear();
    KernelSchema schema;
    if (Status s = ReadKernelSchema(sql, &schema); !s.ok()) return s;
    return sql.Query(fmt::format("SELECT plan_id, COUNT(*) FROM {} GROUP BY plan_id", schema.links),
                     {}, "counting kernels",
                     [&](const SqlRow& row) { (*out)[row.Int64(0)] = row.Int64(1); });
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

std::optional<std::string> KernelChecksumProblem(std::span<const uint8_t> binary,
                                                 int64_t stored_checksum) {
  const uint64_t computed = KernelChecksum(binary);
  const uint64_t stored = FromColumn(stored_checksum);
  if (computed == stored) return std::nullopt;
  return fmt::format("checksum mismatch (stored 0x{:016x}, computed 0x{:016x})", stored, computed);
}

std::string KernelLabel(const KernelRecord& kernel) {
  return fmt::format("kernel {} ({}, {})", kernel.id,
                     kernel.text.name.empty() ? "unnamed" : kernel.text.name, kernel.key.arch);
}

}  // namespace ember
