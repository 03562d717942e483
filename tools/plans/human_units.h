// Parsing and printing the units of the command line and of human output: durations ("30d"),
// byte sizes ("64M"), times (Unix milliseconds as UTC or as an age). Pure functions.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ember::plans {

// "30d", "12h", "90m", "45s", "500ms" (a positive integer and one unit). nullopt otherwise.
std::optional<std::chrono::milliseconds> ParseDuration(std::string_view text);

// "1048576", "512K", "64M", "2G" (binary multiples; an optional trailing "B" or "iB").
// nullopt for anything else or a negative or overflowing size.
std::optional<int64_t> ParseByteSize(std::string_view text);

// "812 B", "3.4 KiB", "12.0 MiB".
std::string FormatBytes(int64_t bytes);

// "2026-11-30 03:16:00" (UTC).
std::string FormatUtc(int64_t unix_ms);

// How long before `now_ms`: "12s ago", "5m ago", "3h ago", "4d ago"; "never" for nullopt.
std::string FormatAge(std::optional<int64_t> unix_ms, int64_t now_ms);

}  // namespace ember::plans
