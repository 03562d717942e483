#include "engine/stream/uncapped_growth.h"

#include <fmt/format.h>

#include <atomic>

#include "engine/core/log.h"

namespace ember {

void NoteUncappedExploration() {
  static std::atomic<size_t> explorations{0};
  if (explorations.fetch_add(1, std::memory_order_relaxed) + 1 != kUncappedNotice) return;
  LogFusion(LogLevel::kMedium, [] {
    return fmt::format(
        "[plan] {} explorations in this process with no exploration cap ([fusion.search] "
        "max_explorations = unlimited): each keeps a plan in memory for the process's life and "
        "in the plan database, so a program whose shapes change every step grows both without "
        "bound; `ember-plans explain` names what changes (a sequence dim: bucket lengths, pad "
        "to a few fixed sizes, so that a few plans serve every step), or set a cap",
        kUncappedNotice);
  });
}

}  // namespace ember
