// CHECK for bugs: a broken internal invariant aborts with file:line and a
// message. Never used for user input (that throws ember::Error) or I/O (that returns Status).
#pragma once

#include <fmt/format.h>

namespace ember::internal {
[[noreturn]] void CheckFailed(const char* file, int line, const char* condition,
                              const std::string& message);
}  // namespace ember::internal

// EMBER_CHECK(cond) or EMBER_CHECK(cond, "format {}", args...).
#define EMBER_CHECK(cond, ...)                                                              \
  do {                                                                                      \
    if (!(cond)) [[unlikely]] {                                                             \
      ::ember::internal::CheckFailed(__FILE__, __LINE__, #cond,                             \
                                     ::fmt::format("" __VA_ARGS__));        \
    }                                                                                       \
  } while (0)

#ifdef NDEBUG
#define EMBER_DCHECK(cond, ...) \
  do {                          \
  } while (0)
#else
#define EMBER_DCHECK(cond, ...) EMBER_CHECK(cond __VA_OPT__(, ) __VA_ARGS__)
#endif
