#include "tools/plans/human_units.h"

#include <fmt/format.h>

#include <charconv>
#include <ctime>
#include <limits>

namespace ember::plans {

namespace {

// The leading decimal digits of `text` as a positive integer; *rest gets what follows.
std::optional<int64_t> LeadingNumber(std::string_view text, std::string_view* rest) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data() || value < 0) return std::nullopt;
  *rest = text.substr(static_cast<size_t>(end - text.data()));
  return value;
}

}  // namespace

std::optional<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  std::string_view unit;
  const std::optional<int64_t> n = LeadingNumber(text, &unit);
  if (!n.has_value() || *n == 0) return std::nullopt;
  int64_t ms_per_unit = 0;
  if (unit == "ms") ms_per_unit = 1;
  if (unit == "s") ms_per_unit = 1000;
  if (unit == "m") ms_per_unit = 60'000;
  if (unit == "h") ms_per_unit = 3'600'000;
  if (unit == "d") ms_per_unit = 86'400'000;
  if (unit == "w") ms_per_unit = 7 * 86'400'000LL;
  if (ms_per_unit == 0 || *n > std::numeric_limits<int64_t>::max() / ms_per_unit) {
    return std::nullopt;
  }
  return std::chrono::milliseconds(*n * ms_per_unit);
}

std::optional<int64_t> ParseByteSize(std::string_view text) {
  std::string_view unit;
  const std::optional<int64_t> n = LeadingNumber(text, &unit);
  if (!n.has_value()) return std::nullopt;
  if (unit.ends_with("iB")) {
    unit.remove_suffix(2);
  } else if (unit.ends_with("B") || unit.ends_with("b")) {
    unit.remove_suffix(1);
  }
  int64_t multiple = 0;
  if (unit.empty()) multiple = 1;
  if (unit == "K" || unit == "k") multiple = 1LL << 10;
  if (unit == "M" || unit == "m") multiple = 1LL << 20;
  if (unit == "G" || unit == "g") multiple = 1LL << 30;
  if (unit == "T" || unit == "t") multiple = 1LL << 40;
  if (multiple == 0 || *n > std::numeric_limits<int64_t>::max() / multiple) return std::nullopt;
  return *n * multiple;
}

std::string FormatBytes(int64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes) / 1024;
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, units[unit]);
}

std::string FormatUtc(int64_t unix_ms) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  if (gmtime_r(&seconds, &tm) == nullptr) return std::to_string(unix_ms);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%d %H:%M:%S", &tm);
  return buffer;
}

std::string FormatAge(std::optional<int64_t> unix_ms, int64_t now_ms) {
  if (!unix_ms.has_value()) return "never";
  const int64_t s = std::max<int64_t>(0, (now_ms - *unix_ms) / 1000);
  if (s < 60) return fmt::format("{}s ago", s);
  if (s < 3600) return fmt::format("{}m ago", s / 60);
  if (s < 86400) return fmt::format("{}h ago", s / 3600);
  return fmt::format("{}d ago", s / 86400);
}

}  // namespace ember::plans
