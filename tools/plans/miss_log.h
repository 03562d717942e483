// Reads back the miss lines of a recorded log (EMBER_LOG=medium, to stderr or the [fusion.log]
// file): "[plan] miss (<cause>): <summary>" (MissExplanation::Line,
// engine/stream/miss_explanation.h), anywhere on a line, among any other output.
#pragma once

#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "tools/plans/miss_report.h"

namespace ember::plans {

// The miss lines of `log` grouped as the engine's patterns group them: the same cause at the
// same op position, op and operand, whatever the values (digit runs other than positions are
// compared as one). `values` collects what differed: a shape miss's real dim, a Cat's arity.
// Groups come most frequent first; `lines` (optional) gets the number of miss lines read.
std::vector<MissGroup> GroupMissLog(std::istream& log, size_t* lines = nullptr);

// One line's miss, if it is one (exposed for tests).
bool ParseMissLine(std::string_view line, MissGroup* out, std::string* key);

}  // namespace ember::plans
