#include "engine/runtime/graph_tape.h"

#include <xxhash.h>

#include <algorithm>
#include <charconv>
#include <unordered_set>

#include <fmt/format.h>

namespace ember {
namespace {

// The first line of every encoded tape; a new layout gets a new number and old recipes stop
// decoding (they then cost one capture each, nothing else).
constexpr std::string_view kHeader = "ember-graph-tape 1";

bool Fail(std::string* why, std::string text) {
  if (why != nullptr) *why = std::move(text);
  return false;
}

template <typename T>
bool ParseField(std::string_view& line, T* out, int base = 10) {
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  const char* end = line.data() + line.size();
  auto [ptr, ec] = std::from_chars(line.data(), end, *out, base);
  if (ec != std::errc() || ptr == line.data()) return false;
  if (ptr != end && *ptr != ' ') return false;
  line.remove_prefix(static_cast<size_t>(ptr - line.data()));
  return true;
}

bool ParseLaunch(std::string_view line, TapeLaunch* launch) {
  if (line.size() < 16) return false;
  if (!ParseField(line, &launch->kernel, 16) || !ParseField(line, &launch->grid) ||
      !ParseField(line, &launch->threads) || !ParseField(line, &launch->shared_bytes) ||
      !ParseField(line, &launch->arg_words)) {
    return false;
  }
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  return line.empty();
}

}  // namespace

uint64_t TapeStep(uint64_t hash, const TapeLaunch& launch) {
  const uint64_t words[] = {hash, launch.kernel,
                            uint64_t{launch.grid} | uint64_t{launch.threads} << 32,
                            uint64_t{launch.shared_bytes} | uint64_t{launch.arg_words} << 32};
  return XXH3_64bits(words, sizeof(words));
}

uint64_t TapeHash(const GraphTape& tape) {
  uint64_t hash = kTapeSeed;
  for (const TapeLaunch& launch : tape.launches) hash = TapeStep(hash, launch);
  return hash;
}

std::string EncodeTape(const GraphTape& tape) {
  std::string text(kHeader);
  text += '\n';
  for (const TapeLaunch& l : tape.launches) {
    fmt::format_to(std::back_inserter(text), "{:016x} {} {} {} {}\n", l.kernel, l.grid, l.threads,
                   l.shared_bytes, l.arg_words);
  }
  return text;
}

std::optional<GraphTape> DecodeTape(std::string_view text, std::string* why) {
  const std::string_view original = text;
  const size_t first = text.find('\n');
  if (first == std::string_view::npos || text.substr(0, first) != kHeader) {
    Fail(why, fmt::format("not a graph tape (the first line is not \"{}\")", kHeader));
    return std::nullopt;
  }
  text.remove_prefix(first + 1);
  GraphTape tape;
  size_t line_number = 1;
  while (!text.empty()) {
    ++line_number;
    const size_t end = text.find('\n');
    if (end == std::string_view::npos) {
      Fail(why, fmt::format("line {} does not end", line_number));
      return std::nullopt;
    }
    TapeLaunch launch;
    if (!ParseLaunch(text.substr(0, end), &launch) || launch.grid == 0 || launch.threads == 0 ||
        launch.threads > 1024) {
      Fail(why, fmt::format("line {} is not a launch", line_number));
      return std::nullopt;
    }
    if (tape.launches.size() == kMaxTapeLaunches) {
      Fail(why, fmt::format("more than {} launches", kMaxTapeLaunches));
      return std::nullopt;
    }
    tape.launches.push_back(launch);
    text.remove_prefix(end + 1);
  }
  if (tape.launches.empty()) {
    Fail(why, "a tape without launches");
    return std::nullopt;
  }
  // Only the one text EncodeTape writes for it (lower-case hex of 16 digits, one space, no
  // padding): one tape has one body, and a body is never longer than its tape needs.
  if (EncodeTape(tape) != original) {
    Fail(why, "not written as EncodeTape writes it");
    return std::nullopt;
  }
  return tape;
}

std::vector<uint64_t> TapeKernels(const GraphTape& tape) {
  std::vector<uint64_t> kernels;
  std::unordered_set<uint64_t> seen;
  for (const TapeLaunch& launch : tape.launches) {
    if (seen.insert(launch.kernel).second) kernels.push_back(launch.kernel);
  }
  return kernels;
}

}  // namespace ember
