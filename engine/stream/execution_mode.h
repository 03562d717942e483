// ExecutionMode: Lazy runs once per newly queued op and may leave ops queued (defer, keep
// exploring); Sync runs at a drain and must consume the whole queue (burn §3.4).
#pragma once

namespace ember {

enum class ExecutionMode { kLazy, kSync };

}  // namespace ember
