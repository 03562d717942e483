#include "codegen/kernel_signature.h"

#include <fmt/format.h>

#include <charconv>
#include <vector>

namespace ember::codegen {
namespace {

// "key=value" as an int within [low, high]; false otherwise.
bool IntField(std::string_view token, std::string_view key, int low, int high, int* out) {
  if (!token.starts_with(key) || token.size() <= key.size() || token[key.size()] != '=') {
    return false;
  }
  const std::string_view value = token.substr(key.size() + 1);
  int v = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (error != std::errc() || end != value.data() + value.size() || v < low || v > high) {
    return false;
  }
  *out = v;
  return true;
}

bool BoolField(std::string_view token, std::string_view key, bool* out) {
  const bool yes = token == fmt::format("{}=true", key);
  if (!yes && token != fmt::format("{}=false", key)) return false;
  *out = yes;
  return true;
}

// "key:" then one character per entry, each in [first, first + count).
template <typename T>
bool ListField(std::string_view token, std::string_view key, char first, int count,
               std::vector<T>* out) {
  if (!token.starts_with(key) || token.size() <= key.size() || token[key.size()] != ':') {
    return false;
  }
  out->clear();
  for (char c : token.substr(key.size() + 1)) {
    if (c < first || c >= first + count) return false;
    out->push_back(static_cast<T>(c - first));
  }
  return true;
}

// The space-separated tokens of `line`.
std::vector<std::string_view> Tokens(std::string_view line) {
  std::vector<std::string_view> tokens;
  while (!line.empty()) {
    const size_t start = line.find_first_not_of(' ');
    if (start == std::string_view::npos) break;
    line.remove_prefix(start);
    const size_t end = line.find(' ');
    tokens.push_back(line.substr(0, end));
    if (end == std::string_view::npos) break;
    line.remove_prefix(end);
  }
  return tokens;
}

}  // namespace

std::string KernelSignature(const KernelSpec& spec) {
  std::string s = fmt::format("mode={} block={} width={} index64={} threads={} group={} shared={}",
                              static_cast<int>(spec.mode), spec.block, spec.width, spec.index64,
                              spec.threads, spec.group, spec.shared_handover);
  for (size_t b = 0; b < spec.access.size(); ++b) {
    s += fmt::format(" b{}:", b);
    for (Access a : spec.access[b]) s += static_cast<char>('0' + static_cast<int>(a));
  }
  s += " dt:";
  for (DType d : spec.dtypes) s += static_cast<char>('a' + static_cast<int>(d));
  s += " ua:";
  for (bool u : spec.unaliased) s += u ? '1' : '0';
  s += " full:";
  for (bool f : spec.full) s += f ? '1' : '0';
  // Only chain kernels carry these, so every earlier signature reads as it did.
  if (spec.chain >= 0) s += fmt::format(" chain={} scratch={}", spec.chain, spec.scratch_base);
  return s;
}

std::optional<KernelSpec> ParseKernelSignature(std::string_view line, size_t blocks) {
  const std::vector<std::string_view> tokens = Tokens(line);
  const size_t fixed = 7 + blocks + 3;
  if (blocks == 0 || (tokens.size() != fixed && tokens.size() != fixed + 2)) return std::nullopt;
  KernelSpec spec;
  int mode = 0;
  if (!IntField(tokens[0], "mode", 0, static_cast<int>(KernelMode::kRowCombine), &mode) ||
      !IntField(tokens[1], "block", 0, static_cast<int>(blocks) - 1, &spec.block) ||
      !IntField(tokens[2], "width", 1, 64, &spec.width) ||
      !BoolField(tokens[3], "index64", &spec.index64) ||
      !IntField(tokens[4], "threads", 1, 1024, &spec.threads) ||
      !IntField(tokens[5], "group", 1, spec.threads, &spec.group) ||
      !BoolField(tokens[6], "shared", &spec.shared_handover)) {
    return std::nullopt;
  }
  spec.mode = static_cast<KernelMode>(mode);
  spec.access.resize(blocks);
  for (size_t b = 0; b < blocks; ++b) {
    if (!ListField(tokens[7 + b], fmt::format("b{}", b), '0',
                   static_cast<int>(Access::kIndexed) + 1, &spec.access[b])) {
      return std::nullopt;
    }
  }
  std::vector<uint8_t> unaliased;
  std::vector<uint8_t> full;
  if (!ListField(tokens[7 + blocks], "dt", 'a', kNumDTypes, &spec.dtypes) ||
      !ListField(tokens[8 + blocks], "ua", '0', 2, &unaliased) ||
      !ListField(tokens[9 + blocks], "full", '0', 2, &full)) {
    return std::nullopt;
  }
  const size_t tensors = spec.dtypes.size();
  for (const std::vector<Access>& access : spec.access) {
    if (access.size() != tensors) return std::nullopt;
  }
  if (unaliased.size() != tensors || full.size() != blocks) return std::nullopt;
  if (tokens.size() == fixed + 2 &&
      (!IntField(tokens[fixed], "chain", 0, 1 << 20, &spec.chain) ||
       !IntField(tokens[fixed + 1], "scratch", 0, 1 << 20, &spec.scratch_base))) {
    return std::nullopt;
  }
  spec.unaliased.assign(unaliased.begin(), unaliased.end());
  spec.full.assign(full.begin(), full.end());
  spec.signature = std::string(line);
  return spec;
}

}  // namespace ember::codegen
