// Printing runs for people: one summary table per run, a side-by-side table for the default
// cold/warm pair, a per-worker table for `workers`. Tables are aligned and at most 100 columns;
// color (bold headings, green/red check) only when stdout is a terminal and NO_COLOR is unset.
// --json output is built in main.cpp from ToJson (run_result.h) instead.
#pragma once

#include <string>
#include <vector>

#include "tools/lab/run_result.h"

namespace ember::lab {

struct Style {
  bool color = false;
  static Style ForStdout();  // color when stdout is a terminal and NO_COLOR is not set
  std::string Bold(const std::string& s) const;
  std::string Dim(const std::string& s) const;
  std::string Good(const std::string& s) const;
  std::string Bad(const std::string& s) const;
};

// The run's title, its steps (when the scenario records them) and its summary table.
void PrintRun(const RunResult& r, const std::string& device_note, const Style& style);
// The default scenario: cold and warm side by side, and their ratios.
void PrintColdWarm(const RunResult& cold, const RunResult& warm, const std::string& device_note,
                   const Style& style);
// `workers N <scenario>`: one row per worker, then the totals.
void PrintWorkers(const std::vector<RunResult>& workers, const Style& style);

// "1.23 ms", "12.3 ms", "1.234 s".
std::string FormatMs(double ms);

}  // namespace ember::lab
