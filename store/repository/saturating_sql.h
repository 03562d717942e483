// Counter additions that stop at the largest integer (issue 40): `x = x + n` raises SQLSTATE
// 22003 on PostgreSQL once x nears INT64_MAX, and on SQLite turns the sum REAL (read back as
// something else). Every counter the repository adds to (hits, misses, unfused runs,
// explorations, plan use, miss counts) is written with SaturatingAdd instead, on both databases:
// a counter at its limit stays there and never fails the write it is part of.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace ember {

// SQL for `column + addend`, at most INT64_MAX; both are SQL expressions, `addend` >= 0 (bind
// counts through NonNegative). The CASE compares before adding, so no overflow is evaluated on
// either database, and a REAL an older binary left in a SQLite column becomes the integer limit.
inline std::string SaturatingAdd(std::string_view column, std::string_view addend) {
  return fmt::format(
      "CASE WHEN {0} > 9223372036854775807 - {1} THEN 9223372036854775807 ELSE {0} + {1} END",
      column, addend);
}

// SQL for the sum of `column` over a query's rows as a BIGINT, at most INT64_MAX, on the
// database `backend` names ("sqlite" or "postgresql"): what reads counters summed over rows
// (`ember-plans stats`). SQLite's SUM fails on an integer overflow, so there the sum is TOTAL's
// (a REAL, exact below 2^53; one past the limit casts to it); PostgreSQL sums BIGINTs as NUMERIC.
inline std::string SaturatingSum(std::string_view backend, std::string_view column) {
  if (backend == "postgresql") {
    return fmt::format("CAST(LEAST(COALESCE(SUM({}), 0), 9223372036854775807) AS BIGINT)", column);
  }
  return fmt::format("CAST(MIN(TOTAL({}), 9223372036854775807) AS INTEGER)", column);
}

// A count to add: never negative (a negative addend would make the bound above overflow).
inline int64_t NonNegative(int64_t count) { return count < 0 ? 0 : count; }

}  // namespace ember
