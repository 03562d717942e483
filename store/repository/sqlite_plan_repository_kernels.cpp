// SqlitePlanRepository's compiled kernels: a binary is only ever returned when its source hash,
// architecture, compiler version and checksum all match (issue 5 "Kernels"; test
// SqliteKernels.KernelIsFoundOnlyByItsExactKey).
#include <fmt/format.h>

#include "engine/core/clock.h"
#include "engine/core/log.h"
#include "store/codec/row_checksum.h"
#include "store/repository/row_writes.h"
#include "store/repository/sqlite_plan_repository.h"
#include "store/sqlite/column_encoding.h"
#include "store/sqlite/sqlite_statement.h"
#include "store/sqlite/sqlite_transaction.h"

namespace ember {

Status SqlitePlanRepository::PutKernel(EnvironmentRowId environment, const NewKernel& kernel,
                                       KernelRowId* id, bool* added) {
  if (Status s = database_->CheckWritable("storing a compiled kernel"); !s.ok()) return s;
  bool inserted = false;
  Status s = RunTransaction(db(), TransactionKind::kWrite, "storing a compiled kernel", [&] {
    return InsertKernelRow(db(), environment, kernel, kernel.plan_id, NowUnixMillis(), id,
                           &inserted);
  });
  if (added != nullptr) *added = s.ok() && inserted;
  return s;
}

Status SqlitePlanRepository::GetKernel(EnvironmentRowId environment, const KernelKey& key,
                                       StoredKernel* out) {
  bool found = false;
  Status s = RunWithBusyRetry(db(), "loading a compiled kernel", [&]() -> Status {
    SqliteStatement select;
    if (Status r = db().Prepare(
            "SELECT id, plan_id, binary, checksum, name, source, options FROM kernels WHERE "
            "environment_id = ?1 AND "
            "source_hash = ?2 AND arch = ?3 AND compiler_version = ?4",
            "loading a compiled kernel", &select);
        !r.ok()) {
      return r;
    }
    select.BindInt64(1, environment);
    select.BindBlob(2, key.source_hash);
    select.BindText(3, key.arch);
    select.BindText(4, key.compiler_version);
    if (Status r = select.Step(&found); !r.ok() || !found) return r;
    out->id = select.ColumnInt64(0);
    out->plan_id =
        select.ColumnIsNull(1) ? std::nullopt : std::optional<PlanRowId>(select.ColumnInt64(1));
    out->key = key;
    out->binary = select.ColumnBlob(2);
    out->checksum = FromColumn(select.ColumnInt64(3));
    out->text = {.name = select.ColumnText(4),
                 .source = select.ColumnText(5),
                 .options = select.ColumnText(6)};
    return Status::Ok();
  });
  if (!s.ok()) return s;
  if (!found) {
    return Status::NotFound(
        fmt::format("no compiled kernel for arch {}, compiler {}", key.arch, key.compiler_version));
  }
  const uint64_t actual = KernelChecksum(out->binary);
  if (actual == out->checksum) return Status::Ok();

  const KernelRowId bad = out->id;
  const uint64_t stored = out->checksum;
  *out = StoredKernel();
  std::string fate = "left in place (read-only database)";
  if (writable()) {
    Status removed =
        RunTransaction(db(), TransactionKind::kWrite, "deleting a damaged kernel", [&]() -> Status {
          SqliteStatement remove;
          if (Status r = db().Prepare("DELETE FROM kernels WHERE id = ?1",
                                      "deleting a damaged kernel", &remove);
              !r.ok()) {
            return r;
          }
          remove.BindInt64(1, bad);
          return remove.Run();
        });
    fate = removed.ok() ? "deleted" : "could not be deleted: " + removed.ToString();
  }
  const std::string message = fmt::format(
      "compiled kernel {} in {} failed its checksum (stored 0x{:016x}, computed 0x{:016x}); "
      "not used, {}",
      bad, database_->path(), stored, actual, fate);
  LogFusion(LogLevel::kBasic, [&] { return "[store] " + message; });
  return Status::Corruption(message);
}

}  // namespace ember
