// RunResult: the figures of one scenario run, measured in the process that ran it. The same
// struct is printed as a table (report.h), written as JSON (--json) and read back from JSON by
// the parent of a cold/warm pair or of workers (child processes print their result on stdout).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <nlohmann/json.hpp>

namespace ember::lab {

// One step's own figures, for the scenarios that show steps (reuse, dynamic).
struct StepRow {
  std::string label;
  uint64_t explorations = 0;
  uint64_t cache_hits = 0;
  uint64_t fused_executions = 0;
  uint64_t unfused_operations = 0;
  uint64_t launches = 0;
  double ms = 0;
  // The step's misses, explained (ember::RecentMisses): "[plan] miss (shape): nearest plan #1
  // differs at op 0 ...", the newest 16 at most.
  std::vector<std::string> misses;
};

struct RunResult {
  std::string scenario;
  std::string device;
  std::string database;  // the plan database path, or "off"
  std::string workload;
  std::string device_note;  // why the CPU was chosen when a GPU was asked for by `auto`
  int steps = 0;
  // The system clock (ns since the Unix epoch) when the clock of the times below started: the
  // start of main(), or for a worker the opening of the start barrier. A script that reads the
  // clock just before exec adds exec -> main to them (bench/gpu/first-result.sh). 0 in result
  // files older than the field.
  int64_t main_unix_ns = 0;
  Stats stats;  // ember::GetStats() at the end of the run (the process did nothing else)
  double engine_start_ms = 0;          // clock start -> the device's engine is up (its
                                       // configuration read, its plan database opened)
  double time_to_first_result_ms = 0;  // clock start -> first step's result read back
  double total_ms = 0;                 // the above plus the later steps' own times
  double steady_ms_per_step = 0;       // median of the steps after the first
  double max_rel_error = 0;            // against the double-precision reference
  double tolerance = 0;
  std::map<std::string, double> details;  // scenario-specific figures (ops, sizes, ...)
  std::vector<StepRow> step_rows;

  uint64_t MemoryHits() const {
    return stats.cache_hits - stats.cache_hits_from_shm - stats.cache_hits_from_db;
  }
  bool Passed() const { return max_rel_error <= tolerance; }
};

nlohmann::json ToJson(const RunResult& r);
// Throws nlohmann::json::exception on a malformed object.
RunResult RunResultFromJson(const nlohmann::json& j);

}  // namespace ember::lab
