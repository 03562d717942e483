// Reads back the miss lines of a recorded log (EMBER_LOG=medium, to stderr or the [fusion.log]
// file): "[plan] miss (<cause>): <summary>" (MissExplanation::Line,
// engine/stream/miss_explanation.h), anywhere on a line, among any other output.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "tools/plans/miss_report.h"

namespace ember::plans {

// What one reading of a log may hold: a log is anyone's file (another machine's, a pipe,
// /dev/zero), so its lines, its patterns and the bytes read are bounded, and the reading says
// what it left out.
struct MissLogLimits {
  size_t max_line_bytes = 16 * 1024;       // a longer line is skipped (the engine's are < 4 KiB)
  size_t max_patterns = 4096;              // misses of further patterns are counted, not grouped
  uint64_t max_bytes = uint64_t{1} << 30;  // reading stops after 1 GiB
};

struct MissLogReading {
  std::vector<MissGroup> groups;  // most frequent first
  size_t miss_lines = 0;          // miss lines read, grouped or not
  size_t long_lines = 0;          // lines skipped for their length
  size_t ungrouped = 0;           // miss lines of patterns past max_patterns
  bool stopped = false;           // reading stopped at max_bytes

  // "" when nothing was left out, else one sentence saying what was.
  std::string LeftOut(const MissLogLimits& limits) const;
};

// The miss lines of `log` grouped as the engine's patterns group them: the same cause at the
// same op position, op and operand, whatever the values (digit runs other than positions are
// compared as one). `values` collects what differed: a shape miss's real dim, a Cat's arity.
// A group's details are kept up to kMaxShownBytes (engine/core/printable.h).
MissLogReading ReadMissLog(std::istream& log, const MissLogLimits& limits = {});

// One line's miss, if it is one (exposed for tests).
bool ParseMissLine(std::string_view line, MissGroup* out, std::string* key);

}  // namespace ember::plans
