// PlanRepository's part in explaining misses (Note [Explaining a miss],
// engine/stream/miss_explanation.h): the candidates of a first op kind, and the workload's
// misses by pattern. Written once on sql() (sql_session.h's shared dialect), so SQLite and
// PostgreSQL keep the same rows; the columns and table are schema 3's
// (migrations/0003_miss_explanation.sql).
#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/core/clock.h"
#include "store/codec/plan_codec.h"
#include "store/repository/column_encoding.h"
#include "store/repository/plan_repository.h"
#include "store/repository/plan_row_check.h"
#include "store/repository/saturating_sql.h"

namespace ember {

namespace {

std::string NumbersText(std::span<const int64_t> numbers) {
  return fmt::format("{}", fmt::join(numbers, ","));
}

// "1,64,32" (found_dims, seen_values) back to numbers; what does not parse is left out (the text is
// informative only).
std::vector<int64_t> ParseNumbers(std::string_view text) {
  std::vector<int64_t> out;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    int64_t value = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (error == std::errc() && end == item.data() + item.size()) out.push_back(value);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

// `into` with the values of `more` it lacks, up to the bound, in first-seen order.
void MergeValues(std::vector<int64_t>& into, std::span<const int64_t> more) {
  for (const int64_t d : more) {
    if (into.size() >= WorkloadMiss::kMaxMissValues) return;
    if (std::find(into.begin(), into.end(), d) == into.end()) into.push_back(d);
  }
}

}  // namespace

Status PlanRepository::WriteMissColumns(PlanRowId plan, const NewPlan& written) {
  std::optional<int> kind = written.first_op_kind;
  if (!kind.has_value()) {
    std::vector<OperationIr> ops;
    // A blob that does not decode gets no kind: the row check (plan_row_check.h) is the one
    // to judge it, not this informative column.
    if (DecodeOperations(written.ops_blob, &ops).ok() && !ops.empty()) {
      kind = static_cast<int>(ops.front().kind);
    }
  }
  if (!kind.has_value()) return Status::Ok();
  const SqlValue dims =
      written.found_dims.empty() ? SqlValue() : SqlValue(NumbersText(written.found_dims));
  return sql().Exec("UPDATE plans SET first_op_kind = ?1, found_dims = ?2 WHERE id = ?3",
                    {SqlValue(int64_t{*kind}), dims, SqlValue(int64_t{plan})},
                    "recording a plan's first op kind");
}

Status PlanRepository::LoadPlansByFirstKind(EnvironmentRowId environment, int first_op_kind,
                                            size_t limit, LoadedPlans* out) {
  std::vector<BadPlanRow> bad;
  Status s = sql().ReadTransaction("loading the plans of a first op kind", [&]() -> Status {
    *out = LoadedPlans();
    bad.clear();
    Status q = sql().Query(
        fmt::format("SELECT {}, p.found_dims FROM plans p WHERE p.environment_id = ?1 AND "
                    "p.first_op_kind = ?2 AND p.status = 'ok' ORDER BY p.id DESC LIMIT ?3",
                    kLoadedPlanColumns),
        {SqlValue(int64_t{environment}), SqlValue(int64_t{first_op_kind}),
         SqlValue(static_cast<int64_t>(limit))},
        "loading the plans of a first op kind", [&](const SqlRow& row) {
          StoredPlan plan;
          BadPlanRow problem;
          if (!ReadLoadedPlan(row, &plan, &problem)) {
            bad.push_back(std::move(problem));
            return;
          }
          plan.found_dims = ParseNumbers(row.Text(kLoadedPlanColumnCount));
          out->plans.push_back(std::move(plan));
        });
    if (!q.ok()) return q;
    for (StoredPlan& plan : out->plans) {
      q = sql().Query("SELECT kind, ops_blob FROM triggers WHERE plan_id = ?1 ORDER BY position",
                      {SqlValue(int64_t{plan.id})}, "loading a plan's triggers",
                      [&](const SqlRow& row) {
                        plan.triggers.push_back({static_cast<int>(row.Int64(0)), row.Blob(1)});
                      });
      if (!q.ok()) return q;
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  ReportBadRows(bad, out);
  return Status::Ok();
}

Status PlanRepository::RecordMisses(WorkloadRowId workload, std::span<const WorkloadMiss> misses) {
  if (misses.empty()) return Status::Ok();
  if (Status s = CheckWritable("recording misses"); !s.ok()) return s;
  const int64_t now = NowUnixMillis();
  return sql().WriteTransaction("recording misses", [&]() -> Status {
    for (const WorkloadMiss& miss : misses) {
      // The values are merged here rather than in SQL: the bound and the order are easier to
      // keep.
      std::vector<int64_t> values;
      Status q = sql().Query(
          "SELECT seen_values FROM workload_misses WHERE workload_id = ?1 AND pattern = ?2",
          {SqlValue(int64_t{workload}), SqlValue(ToColumn(miss.pattern))}, "reading a miss",
          [&](const SqlRow& row) { values = ParseNumbers(row.Text(0)); });
      if (!q.ok()) return q;
      MergeValues(values, miss.values);
      q = sql().Exec(
          "INSERT INTO workload_misses (workload_id, pattern, cause, op_position, op_name, "
          "nearest_plan, first_detail, last_detail, seen_values, count, first_seen, last_seen) "
          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?11, ?7, ?8, ?9, ?10, ?10) "
          "ON CONFLICT (workload_id, pattern) DO UPDATE SET count = " +
              SaturatingAdd("workload_misses.count", "excluded.count") +
              ", last_detail = excluded.last_detail, nearest_plan = excluded.nearest_plan, "
              "seen_values = excluded.seen_values, last_seen = excluded.last_seen",
          {SqlValue(int64_t{workload}), SqlValue(ToColumn(miss.pattern)), SqlValue(miss.cause),
           SqlValue(miss.op_position), SqlValue(miss.op_name), SqlValue(miss.nearest_plan),
           SqlValue(miss.detail), SqlValue(NumbersText(values)), SqlValue(NonNegative(miss.count)),
           SqlValue(now), SqlValue(miss.first_detail.empty() ? miss.detail : miss.first_detail)},
          "recording a miss");
      if (!q.ok()) return q;
    }
    return Status::Ok();
  });
}

Status PlanRepository::ListMisses(std::optional<WorkloadRowId> workload,
                                  std::vector<WorkloadMiss>* out) {
  out->clear();
  const std::string sql_text = fmt::format(
      "SELECT workload_id, pattern, cause, op_position, op_name, nearest_plan, first_detail, "
      "last_detail, seen_values, count, first_seen, last_seen FROM workload_misses {} "
      "ORDER BY count DESC, last_seen DESC, id",
      workload.has_value() ? "WHERE workload_id = ?1" : "");
  std::vector<SqlValue> args;
  if (workload.has_value()) args.emplace_back(int64_t{*workload});
  return sql().ReadTransaction("listing misses", [&]() -> Status {
    out->clear();
    return sql().Query(sql_text, args, "listing misses", [&](const SqlRow& row) {
      WorkloadMiss miss;
      miss.workload_id = row.Int64(0);
      miss.pattern = FromColumn(row.Int64(1));
      miss.cause = row.Text(2);
      miss.op_position = row.Int64(3);
      miss.op_name = row.Text(4);
      miss.nearest_plan = row.Text(5);
      miss.first_detail = row.Text(6);
      miss.detail = row.Text(7);
      miss.values = ParseNumbers(row.Text(8));
      miss.count = row.Int64(9);
      miss.first_seen = row.Int64(10);
      miss.last_seen = row.Int64(11);
      out->push_back(std::move(miss));
    });
  });
}

}  // namespace ember
