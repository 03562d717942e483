// Progress: a one-line progress bar on stdout, redrawn in place. Shown only when stdout is a
// terminal and only once a run has taken half a second (short runs never draw it); erased
// before the summary is printed.
#pragma once

#include <chrono>
#include <string>

namespace ember::lab {

class Progress {
 public:
  // `enabled` false (not a terminal, --json, a child process) makes every call a no-op.
  Progress(bool enabled, std::string label);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // The number of steps the run will take (a scenario knows it once it has read its options).
  void SetTotal(int total) { total_ = total; }
  // Marks one more step done and redraws (at most every 50 ms, and for the last step).
  void Advance();
  // Erases the bar's line.
  void Clear();

 private:
  bool enabled_;
  bool drawn_ = false;
  std::string label_;
  int total_ = 0;
  int done_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

// Whether stdout is a terminal (colors and the progress bar).
bool StdoutIsTerminal();

}  // namespace ember::lab
