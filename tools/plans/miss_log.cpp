// Reading miss lines back from a recorded log (miss_log.h).
#include "tools/plans/miss_log.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/core/printable.h"

namespace ember::plans {

namespace {

constexpr std::string_view kMarker = "[plan] miss (";
constexpr std::string_view kNearest = "nearest plan ";
constexpr std::string_view kStored = "stored plan ";
constexpr std::string_view kDiffers = "differs at op ";
constexpr std::string_view kNoCandidate = "no stored plan starts with ";
// What engine/stream/processor.cpp appends when the workload's budget was spent: not part of
// the miss's pattern.
constexpr std::string_view kUnfusedSuffix = " (exploration budget spent: runs unfused)";

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

std::optional<int64_t> ParseInt(std::string_view text) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The digit run at the start of `text` (possibly empty).
std::string_view LeadingDigits(std::string_view text) {
  size_t n = 0;
  while (n < text.size() && IsDigit(text[n])) ++n;
  return text.substr(0, n);
}

// `difference` with its values replaced by '#', positions kept: "input 0 shape [1,2] vs [1,1]
// (64×32 gives ...): dim 1 differs" becomes "input 0 shape [#,#] vs [#,#] (#×# gives ...): dim 1
// differs", so that misses that differ only in the values group together.
std::string Normalize(std::string_view difference) {
  std::string out;
  size_t i = 0;
  while (i < difference.size()) {
    if (!IsDigit(difference[i])) {
      out += difference[i++];
      continue;
    }
    const std::string_view digits = LeadingDigits(difference.substr(i));
    const std::string_view before = std::string_view(out);
    const bool position = before.ends_with("op ") || before.ends_with("input ") ||
                          before.ends_with("output ") || before.ends_with("dim ");
    out += position ? std::string(digits) : std::string("#");
    i += digits.size();
  }
  return out;
}

// What differed, as a number: a shape miss's real dim ("(64×32 gives ...): dim 1 differs" gives
// 32), a Cat's arity ("9 inputs vs 4" gives 9).
std::optional<int64_t> DifferingValue(std::string_view cause, std::string_view difference) {
  if (cause == "attribute") {
    const std::string_view n = LeadingDigits(difference);
    const std::string_view rest = difference.substr(n.size());
    if (!n.empty() && rest.starts_with(" ") && rest.find("s vs ") != std::string_view::npos) {
      return ParseInt(n);
    }
    return std::nullopt;
  }
  if (cause != "shape") return std::nullopt;
  const size_t gives = difference.find(" gives ");
  const size_t dim_at = difference.rfind(": dim ");
  if (gives == std::string_view::npos || dim_at == std::string_view::npos) return std::nullopt;
  const size_t open = difference.rfind('(', gives);
  if (open == std::string_view::npos) return std::nullopt;
  const std::optional<int64_t> dim =
      ParseInt(LeadingDigits(difference.substr(dim_at + std::string_view(": dim ").size())));
  if (!dim.has_value()) return std::nullopt;
  std::string_view dims = difference.substr(open + 1, gives - open - 1);
  constexpr std::string_view kTimes = "×";
  for (int64_t k = 0;; ++k) {
    const size_t cut = dims.find(kTimes);
    if (k == *dim) return ParseInt(dims.substr(0, cut));
    if (cut == std::string_view::npos) return std::nullopt;
    dims.remove_prefix(cut + kTimes.size());
  }
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) {
    text.remove_suffix(1);
  }
  return text;
}

}  // namespace

bool ParseMissLine(std::string_view line, MissGroup* out, std::string* key) {
  const size_t at = line.find(kMarker);
  if (at == std::string_view::npos) return false;
  std::string_view rest = line.substr(at + kMarker.size());
  const size_t close = rest.find("): ");
  if (close == std::string_view::npos || close == 0) return false;
  MissGroup miss;
  miss.cause = std::string(rest.substr(0, close));
  std::string_view summary = Trim(rest.substr(close + 3));
  if (summary.ends_with(kUnfusedSuffix)) summary.remove_suffix(kUnfusedSuffix.size());
  miss.first_detail = miss.last_detail = std::string(summary);
  miss.count = 1;
  std::string_view difference = summary;
  if (summary.starts_with(kNearest)) {
    std::string_view after = summary.substr(kNearest.size());
    size_t label_size = 0;
    if (after.starts_with(kStored)) {
      label_size = kStored.size() + LeadingDigits(after.substr(kStored.size())).size();
    } else {
      label_size = std::min(after.find(' '), after.size());
    }
    miss.nearest_plan = std::string(after.substr(0, label_size));
    after.remove_prefix(std::min(label_size + 1, after.size()));
    difference = after;
    if (after.starts_with(kDiffers)) {
      after.remove_prefix(kDiffers.size());
      const std::string_view op = LeadingDigits(after);
      const size_t name_end = after.find("): ");
      if (!op.empty() && after.substr(op.size()).starts_with(" (") &&
          name_end != std::string_view::npos) {
        miss.op_position = ParseInt(op).value_or(0);
        miss.op_name = std::string(after.substr(op.size() + 2, name_end - op.size() - 2));
        difference = after.substr(name_end + 3);
      }
    }
  } else if (summary.starts_with(kNoCandidate)) {
    miss.op_name = std::string(summary.substr(kNoCandidate.size()));
  }
  if (const std::optional<int64_t> v = DifferingValue(miss.cause, difference); v.has_value()) {
    miss.values.push_back(*v);
  }
  *key = miss.cause + "|" + std::to_string(miss.op_position) + "|" + miss.op_name + "|" +
         Normalize(difference);
  *out = std::move(miss);
  return true;
}

std::string MissLogReading::LeftOut(const MissLogLimits& limits) const {
  std::vector<std::string> parts;
  if (long_lines > 0) {
    parts.push_back(
        fmt::format("{} line(s) longer than {} bytes skipped", long_lines, limits.max_line_bytes));
  }
  if (ungrouped > 0) {
    parts.push_back(
        fmt::format("{} miss line(s) past the first {} patterns counted but not grouped", ungrouped,
                    limits.max_patterns));
  }
  if (stopped) parts.push_back(fmt::format("reading stopped after {} bytes", limits.max_bytes));
  return fmt::format("{}", fmt::join(parts, "; "));
}

MissLogReading ReadMissLog(std::istream& log, const MissLogLimits& limits) {
  MissLogReading reading;
  std::map<std::string, size_t> index;  // key -> position in groups
  uint64_t consumed = 0;
  std::string line(limits.max_line_bytes + 1, '\0');
  while (!reading.stopped) {
    // At most max_line_bytes + 1 characters: one more means the line is too long.
    log.getline(line.data(), static_cast<std::streamsize>(line.size()));
    const auto got = static_cast<size_t>(log.gcount());
    consumed += got;
    if (log.bad() || (got == 0 && log.eof())) break;
    if (log.fail() && !log.eof()) {
      // Too long: skip to its end in bounded steps, so /dev/zero ends at max_bytes.
      log.clear();
      ++reading.long_lines;
      constexpr std::streamsize kStep = 1 << 20;
      while (consumed < limits.max_bytes) {
        log.ignore(kStep, '\n');
        consumed += static_cast<uint64_t>(log.gcount());
        if (log.gcount() < kStep || log.eof()) break;
      }
      reading.stopped = consumed >= limits.max_bytes && !log.eof();
      continue;
    }
    reading.stopped = consumed >= limits.max_bytes;
    // A NUL inside the line ends it here, as it ends the text getline stored.
    const std::string_view text(line.data(), std::strlen(line.data()));
    MissGroup miss;
    std::string key;
    if (!ParseMissLine(text, &miss, &key)) continue;
    ++reading.miss_lines;
    const auto found = index.find(key);
    if (found == index.end()) {
      if (reading.groups.size() >= limits.max_patterns) {
        ++reading.ungrouped;
        continue;
      }
      miss.first_detail = miss.first_detail.substr(0, kMaxShownBytes);
      miss.last_detail = miss.first_detail;
      index.emplace(std::move(key), reading.groups.size());
      reading.groups.push_back(std::move(miss));
      continue;
    }
    MissGroup& group = reading.groups[found->second];
    ++group.count;
    group.last_detail = miss.last_detail.substr(0, kMaxShownBytes);
    group.nearest_plan = std::move(miss.nearest_plan);
    for (const int64_t v : miss.values) {
      if (group.values.size() < WorkloadMiss::kMaxMissValues &&
          std::find(group.values.begin(), group.values.end(), v) == group.values.end()) {
        group.values.push_back(v);
      }
    }
  }
  // Most frequent first; among equals, the first seen first (stable).
  std::stable_sort(reading.groups.begin(), reading.groups.end(),
                   [](const MissGroup& a, const MissGroup& b) { return a.count > b.count; });
  return reading;
}

}  // namespace ember::plans
