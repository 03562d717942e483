// A process's identity as other processes can check it: its pid and its start time, so that a
// recycled pid is not mistaken for the process that held a claim (Note [Shared plan segment]).
// Linux only (/proc).
#pragma once

#include <cstdint>

namespace ember {

// This process: pid in the high 32 bits, the low 32 bits of its start time (clock ticks since
// boot, /proc/self/stat field 22) in the low 32 bits. Never 0. Computed once, but recomputed
// in a child after fork().
uint64_t SelfProcessToken();

// Whether the process that `token` names still runs: its pid exists, is not a zombie, and
// started at the same time. A token of a process we cannot inspect counts as alive.
bool ProcessTokenAlive(uint64_t token);

// The pid a token names.
inline int ProcessTokenPid(uint64_t token) { return static_cast<int>(token >> 32); }

}  // namespace ember
