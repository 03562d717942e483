// What `ember-plans explain` reports: the misses of a workload grouped by pattern (the same
// miss again, Note [Explaining a miss] in engine/stream/miss_explanation.h), most frequent
// first, each with advice a user can act on. The groups come from the database's
// workload_misses rows (schema 3) or from a recorded EMBER_LOG=medium log (miss_log.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/repository/plan_rows.h"

namespace ember::plans {

// One pattern of misses.
struct MissGroup {
  std::string cause;  // MissCauseName: "shape", "attribute", ...
  int64_t op_position = 0;
  std::string op_name;
  std::string nearest_plan;     // "stored plan 3", "#2"; empty when there was none
  std::string first_detail;     // the first explanation seen (MissExplanation::Summary)
  std::string last_detail;      // the latest
  std::vector<int64_t> values;  // distinct values of what differed (a dim, a Cat's arity)
  int64_t count = 0;
  int64_t first_seen = 0;  // Unix ms; 0 when unknown (a log)
  int64_t last_seen = 0;
};

// The misses of one workload (or of one log).
struct MissReport {
  std::string name;               // the workload's name; the log's path for a log
  int64_t environment_id = -1;    // -1: not known (a log)
  std::vector<MissGroup> groups;  // most frequent first
  int64_t total() const;
  std::map<std::string, int64_t> by_cause() const;
};

MissGroup FromWorkloadMiss(const WorkloadMiss& miss);

// What to do about `group`, one or two sentences. A shape or arity that took a new value on
// most misses (a sequence length that changes every step) gets the bucketing advice.
std::string MissAdvice(const MissGroup& group);

// Human output: per report, its total by cause, then the groups (at most `limit` each).
std::string RenderMissReports(const std::vector<MissReport>& reports, size_t limit);
// --json (docs/ember-plans.md, "explain").
nlohmann::ordered_json MissReportsJson(const std::vector<MissReport>& reports,
                                       const std::string& source, size_t limit);

}  // namespace ember::plans
