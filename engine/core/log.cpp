#include "engine/core/log.h"

#include <cerrno>
#include <cstdio>
#include <mutex>
#include <set>
#include <system_error>

#include "engine/core/check.h"
#include "engine/core/printable.h"

namespace ember {
namespace {

// Guards everything below and the messages of every capture. A std::mutex is constant-
// initialized, so logging from another static's constructor is safe.
std::mutex g_mutex;
ScopedLogCapture* g_capture = nullptr;
// nullptr until the first write after a (re)configuration.
std::FILE* g_sink = nullptr;
// The once-keys of Warn calls already written.
std::set<std::string, std::less<>>* g_warned = nullptr;

// Opens Config::log_file once, falling back to stderr with one warning.
// REQUIRES: g_mutex held.
std::FILE* SinkLocked() {
  if (g_sink != nullptr) return g_sink;
  const std::string& path = GlobalConfig().log_file;
  g_sink = stderr;
  if (path.empty()) return g_sink;
  if (std::FILE* file = std::fopen(path.c_str(), "a")) {
    g_sink = file;
    return g_sink;
  }
  const std::string reason = std::generic_category().message(errno);
  std::fprintf(stderr, "ember: log: cannot open [fusion.log] file \"%s\" (%s); logging to stderr\n",
               path.c_str(), reason.c_str());
  return g_sink;
}

}  // namespace

namespace internal {

std::atomic<int> g_log_level{kLogLevelUnknown};

int RefreshLogLevel() {
  // Outside the lock: the first load reads a file and prints warnings, and other threads'
  // lines should not wait for it.
  const Config& config = GlobalConfig();
  std::lock_guard lock(g_mutex);
  const LogLevel level = g_capture != nullptr ? g_capture->level_ : config.log_level;
  g_log_level.store(static_cast<int>(level), std::memory_order_relaxed);
  return static_cast<int>(level);
}

void WriteLogMessage(std::string message) {
  // Messages quote text from outside (workload names, paths, stored rows): no control sequence
  // reaches a terminal or a log file (engine/core/printable.h).
  message = PrintableLines(message);
  std::lock_guard lock(g_mutex);
  if (g_capture != nullptr) {
    g_capture->messages_.push_back(std::move(message));
    return;
  }
  // One fwrite per message: the line and its newline leave together.
  message.push_back('\n');
  std::FILE* sink = SinkLocked();
  std::fwrite(message.data(), 1, message.size(), sink);
  // Flushed at once so that a crash does not eat the lines that explain it.
  std::fflush(sink);
}

void ResetLogState() {
  std::lock_guard lock(g_mutex);
  if (g_sink != nullptr && g_sink != stderr) std::fclose(g_sink);
  g_sink = nullptr;
  if (g_capture == nullptr) g_log_level.store(kLogLevelUnknown, std::memory_order_relaxed);
}

}  // namespace internal

bool Warn(std::string_view once_key, std::string message) {
  std::lock_guard lock(g_mutex);
  if (!once_key.empty()) {
    if (g_warned == nullptr) g_warned = new std::set<std::string, std::less<>>();  // never freed
    if (!g_warned->emplace(once_key).second) return false;
  }
  message = "ember: " + PrintableLines(message);
  if (g_capture != nullptr) {
    g_capture->messages_.push_back(std::move(message));
    return true;
  }
  message.push_back('\n');
  std::fwrite(message.data(), 1, message.size(), stderr);
  std::fflush(stderr);
  return true;
}

ScopedLogCapture::ScopedLogCapture(LogLevel level) : level_(level) {
  std::lock_guard lock(g_mutex);
  previous_ = g_capture;
  g_capture = this;
  internal::g_log_level.store(static_cast<int>(level_), std::memory_order_relaxed);
}

ScopedLogCapture::~ScopedLogCapture() {
  std::lock_guard lock(g_mutex);
  EMBER_CHECK(g_capture == this, "ScopedLogCapture destroyed out of order");
  g_capture = previous_;
  internal::g_log_level.store(
      previous_ != nullptr ? static_cast<int>(previous_->level_) : internal::kLogLevelUnknown,
      std::memory_order_relaxed);
}

std::vector<std::string> ScopedLogCapture::messages() const {
  std::lock_guard lock(g_mutex);
  return messages_;
}

std::vector<std::string> ScopedLogCapture::lines() const {
  std::vector<std::string> lines;
  for (const std::string& message : messages()) {
    size_t start = 0;
    while (true) {
      const size_t end = message.find('\n', start);
      lines.push_back(message.substr(start, end - start));
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  return lines;
}

void ScopedLogCapture::Clear() {
  std::lock_guard lock(g_mutex);
  messages_.clear();
}

}  // namespace ember
