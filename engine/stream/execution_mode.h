// ExecutionMode: Lazy runs once per newly queued op and may leave ops queued (defer, keep
// exploring); Sync runs at a drain and must consume the whole queue (burn's ExecutionMode,
// burn-fusion's stream/execution/base.rs).
#pragma once

namespace ember {

enum class ExecutionMode { kLazy, kSync };

// "lazy" / "sync", as burn's log lines print the mode.
inline const char* ExecutionModeName(ExecutionMode mode) {
  return mode == ExecutionMode::kLazy ? "lazy" : "sync";
}

}  // namespace ember
