// MappingGuard: a shared segment shrunk under this process becomes a dropped segment, not a
// crash.
//
// Note [Truncated segment]
// Whoever may write a segment may also shrink it (ftruncate on /dev/shm/<name>): a sibling of
// another build, a clean-up script, an operator. The pages past the new end are then gone from
// every process's mapping, and the next access to one raises SIGBUS, which kills the process —
// every worker of the host at once. A MappingGuard registers one mapping with a process-wide
// SIGBUS handler (installed with the first guard, kept for the life of the process). For a
// fault inside a guarded mapping, the handler maps private zero pages over the whole mapping
// (mmap MAP_FIXED | MAP_ANONYMOUS: callable in a handler on Linux, a plain system call) and
// flags the guard as lost; the faulting access is then executed again and reads zeros, as does
// every later one. A zeroed header is not kReady, so the tier sees a broken segment, drops it,
// and the next opener finds the object too small and recreates it (Note [Shared plan segment]);
// nothing is read from the zeros but "broken". A fault anywhere else goes to the handler that
// was installed before (or, if there was none, kills the process with SIGBUS as it would have).
//
// Threading: guards may be made and destroyed on any thread; the table is lock-free. At most
// kMaxGuards mappings are guarded at once (one per open segment); past that a mapping is used
// unguarded (guarded() is false).
#pragma once

#include <cstddef>

namespace ember::shm {

class MappingGuard {
 public:
  static constexpr size_t kMaxGuards = 64;

  // Guards [base, base + bytes). REQUIRES: the range is one mapping that outlives the guard.
  MappingGuard(void* base, size_t bytes);
  ~MappingGuard();  // before the mapping is unmapped
  MappingGuard(const MappingGuard&) = delete;
  MappingGuard& operator=(const MappingGuard&) = delete;

  bool guarded() const { return slot_ >= 0; }
  // Whether the mapping was found shrunk under this process and replaced by zero pages.
  bool lost() const;

 private:
  int slot_ = -1;
};

}  // namespace ember::shm
