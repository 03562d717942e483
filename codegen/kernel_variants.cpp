#include "codegen/kernel_variants.h"

#include <charconv>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include <ember/error.h>

namespace ember::codegen {
namespace {

int64_t Number(std::string_view word, std::string_view value, int64_t lo, int64_t hi) {
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || end != value.data() + value.size() || n < lo || n > hi) {
    throw Error(fmt::format("EMBER_KERNEL_VARIANTS: '{}' needs a whole number from {} to {}", word,
                            lo, hi));
  }
  return n;
}

std::optional<KernelVariants>& TestingOverride() {
  static std::optional<KernelVariants> variants;
  return variants;
}

}  // namespace

std::string KernelVariants::Text() const {
  std::string s;
  auto add = [&](const std::string& word) { s += (s.empty() ? "" : ",") + word; };
  if (row_min_blocks > 0) add(fmt::format("minblocks={}", row_min_blocks));
  if (row_vectors_per_thread > 0) add(fmt::format("vpt={}", row_vectors_per_thread));
  if (row_no_wave_cap) add("rownocap");
  if (row_no_register_cap) add("noregcap");
  if (elementwise_unroll) add("unroll");
  if (elementwise_no_cap) add("nocap");
  return s;
}

KernelVariants ParseKernelVariants(std::string_view text) {
  KernelVariants v;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view word = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (word.empty()) continue;
    const size_t eq = word.find('=');
    const std::string_view name = word.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? "" : word.substr(eq + 1);
    if (name == "minblocks" && eq != std::string_view::npos) {
      v.row_min_blocks = static_cast<int>(Number(word, value, 1, 32));
    } else if (name == "vpt" && eq != std::string_view::npos) {
      v.row_vectors_per_thread = Number(word, value, 1, 64);
      if ((v.row_vectors_per_thread & (v.row_vectors_per_thread - 1)) != 0) {
        throw Error(fmt::format("EMBER_KERNEL_VARIANTS: '{}' needs a power of two", word));
      }
    } else if (word == "rownocap") {
      v.row_no_wave_cap = true;
    } else if (word == "noregcap") {
      v.row_no_register_cap = true;
    } else if (word == "unroll") {
      v.elementwise_unroll = true;
    } else if (word == "nocap") {
      v.elementwise_no_cap = true;
    } else {
      throw Error(fmt::format(
          "EMBER_KERNEL_VARIANTS: unknown word '{}' (known: minblocks=N, vpt=N, rownocap, "
          "noregcap, unroll, nocap; codegen/kernel_variants.h)",
          word));
    }
  }
  return v;
}

const KernelVariants& ActiveKernelVariants() {
  if (const std::optional<KernelVariants>& forced = TestingOverride()) return *forced;
  static const KernelVariants variants = [] {
    const char* env = std::getenv("EMBER_KERNEL_VARIANTS");
    return env == nullptr ? KernelVariants{} : ParseKernelVariants(env);
  }();
  return variants;
}

void SetKernelVariantsForTesting(const KernelVariants* variants) {
  if (variants == nullptr) {
    TestingOverride().reset();
  } else {
    TestingOverride() = *variants;
  }
}

}  // namespace ember::codegen
