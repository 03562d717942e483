// The fusion log (burn's log_fusion, burn-std config/logger.rs): what the search decided and
// why, at burn's levels (what each adds: docs/CONFIGURATION.md, "The fusion log"). Callable
// from any thread.
//
//   LogFusion(LogLevel::kFull, [&] { return fmt::format("[stream] op {} ...", pos); });
//
// The closure runs only when the level is enabled, so a disabled log costs one relaxed atomic
// load. Each message goes out whole (one write of the message and its newline under one mutex),
// so lines from different threads never interleave. A message may span several lines (the
// fusion trace table); it is still written in one piece.
//
// Where it goes: Config::log_file when set (opened once, append mode; if it cannot be opened,
// one warning on stderr and stderr from then on), else stderr. A ScopedLogCapture diverts every
// message into memory instead, for tests.
#pragma once

#include <atomic>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/core/config.h"

namespace ember {

namespace internal {
// The effective level as an int, or kLogLevelUnknown until the first read after a change.
// Written only under the log mutex; read without it.
inline constexpr int kLogLevelUnknown = -1;
extern std::atomic<int> g_log_level;
// Reads the level from the active capture or GlobalConfig() and caches it.
int RefreshLogLevel();
// Writes one message to the active capture or the sink.
void WriteLogMessage(std::string message);
// Drops the cached level and the open sink; the next use re-reads GlobalConfig(). Called by
// SetGlobalConfigForTesting.
void ResetLogState();
}  // namespace internal

// Whether a message at `level` would be written. kDisabled is never written.
inline bool LogEnabled(LogLevel level) {
  int current = internal::g_log_level.load(std::memory_order_relaxed);
  if (current == internal::kLogLevelUnknown) [[unlikely]] {
    current = internal::RefreshLogLevel();
  }
  return level != LogLevel::kDisabled && static_cast<int>(level) <= current;
}

// Writes the message `build_message()` returns (a std::string, without trailing newline) when
// `level` is enabled; otherwise does not call it.
template <typename BuildMessage>
void LogFusion(LogLevel level, BuildMessage&& build_message) {
  if (!LogEnabled(level)) return;
  internal::WriteLogMessage(std::forward<BuildMessage>(build_message)());
}

// Warn: a problem that costs the user something they rely on — the warm start, the shared tier,
// plans they expect to be stored — said whatever EMBER_LOG is (its default is disabled), as
// "ember: <message>" on stderr (never only in the log file: a user who set no level reads
// stderr). With a non-empty `once_key`, only the first call per key in the process is written
// (keys name the resource: "plan-db-readonly:" + path); returns whether it was written. A
// ScopedLogCapture receives warnings too, whatever its level.
bool Warn(std::string_view once_key, std::string message);

// While alive, sets the effective log level to `level` (whatever the configuration says) and
// collects every message in memory instead of writing it. Captures nest: the innermost one
// receives, and destroying it restores the one before (or the configured level and sink).
// REQUIRES: created and destroyed on the same thread, in LIFO order; messages may come from
// any thread.
class ScopedLogCapture {
 public:
  explicit ScopedLogCapture(LogLevel level = LogLevel::kFull);
  ~ScopedLogCapture();
  ScopedLogCapture(const ScopedLogCapture&) = delete;
  ScopedLogCapture& operator=(const ScopedLogCapture&) = delete;

  // Every message so far, one entry per LogFusion call, in the order written.
  std::vector<std::string> messages() const;
  // The same text split at '\n': one entry per line (the trace table gives several).
  std::vector<std::string> lines() const;
  void Clear();

 private:
  friend void internal::WriteLogMessage(std::string message);
  friend int internal::RefreshLogLevel();
  friend bool Warn(std::string_view once_key, std::string message);

  LogLevel level_;
  ScopedLogCapture* previous_;
  std::vector<std::string> messages_;  // Guarded by the log mutex.
};

}  // namespace ember
