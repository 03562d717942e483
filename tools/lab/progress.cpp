#include "tools/lab/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace ember::lab {

namespace {
constexpr auto kShowAfter = std::chrono::milliseconds(500);
constexpr auto kRedrawEvery = std::chrono::milliseconds(50);
constexpr int kBarWidth = 40;
}  // namespace

bool StdoutIsTerminal() { return isatty(STDOUT_FILENO) == 1; }

Progress::Progress(bool enabled, std::string label)
    : enabled_(enabled), label_(std::move(label)), start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() { Clear(); }

void Progress::Advance() {
  ++done_;
  if (!enabled_ || total_ < 2) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < kShowAfter) return;
  if (drawn_ && now - last_draw_ < kRedrawEvery && done_ < total_) return;
  last_draw_ = now;
  drawn_ = true;
  const int filled = kBarWidth * std::min(done_, total_) / total_;
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(kBarWidth, '.');
  std::printf("\r%-12s [%s] %d/%d", label_.c_str(), bar.c_str(), done_, total_);
  std::fflush(stdout);
}

void Progress::Clear() {
  if (!drawn_) return;
  std::printf("\r%*s\r", 80, "");
  std::fflush(stdout);
  drawn_ = false;
}

}  // namespace ember::lab
