// Note [Uncapped growth]: with no exploration cap ([fusion.search] max_explorations =
// "unlimited"), every segment that matches no plan is explored and its plan kept, in memory
// for the process's life and in the plan database. A program whose shapes change every step
// (a sequence length that is never the same twice) then grows both without bound: issue 40
// measured 2,000 plans and 1.1 GB of resident memory after 2,000 steps of such a program on the
// CPU. The default cap (30) bounds it; a user who lifted it is told once, at EMBER_LOG=medium,
// when this process has explored kUncappedNotice times, with what `ember-plans explain` would
// advise. docs/CONFIGURATION.md ("max_explorations") gives the memory cost.
//
// Callable from any thread.
#pragma once

#include <cstddef>

namespace ember {

inline constexpr size_t kUncappedNotice = 256;

// One more exploration under no cap, in this process; says so once at the notice.
void NoteUncappedExploration();

}  // namespace ember
