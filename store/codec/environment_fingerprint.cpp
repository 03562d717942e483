#include "store/codec/environment_fingerprint.h"

#include <xxhash.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/core/printable.h"

namespace ember {

namespace {

// A stored description is text another host wrote: each value it contributes to a miss line is
// bounded and escaped, and so is the number of fields named (a 200 KB description once gave
// 200 KB miss rows).
constexpr size_t kMaxValueBytes = 160;
constexpr size_t kMaxFieldsNamed = 6;

std::string ShownValue(std::string_view text) { return PrintableBounded(text, kMaxValueBytes); }

void AppendJsonString(std::string& out, std::string_view text) {
  out += '"';
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void AppendKey(std::string& out, std::string_view key) {
  AppendJsonString(out, key);
  out += ':';
}

}  // namespace

std::string CanonicalEnvironmentText(const EnvironmentFingerprint& fp) {
  std::string out = "{";
  AppendKey(out, "engine_version");
  AppendJsonString(out, fp.engine_version);
  out += ',';
  AppendKey(out, "schema_version");
  out += fmt::format("{}", fp.schema_version);
  out += ',';
  AppendKey(out, "backend");
  AppendJsonString(out, fp.backend);
  out += ',';
  AppendKey(out, "device_model");
  AppendJsonString(out, fp.device_model);
  out += ',';
  AppendKey(out, "compute_capability");
  AppendJsonString(out, fp.compute_capability);
  out += ',';
  if (!fp.compiler.empty()) {
    AppendKey(out, "compiler");
    AppendJsonString(out, fp.compiler);
    out += ',';
  }
  AppendKey(out, "fusers");
  out += '[';
  for (size_t i = 0; i < fp.fusers.size(); ++i) {
    if (i > 0) out += ',';
    out += '{';
    AppendKey(out, "name");
    AppendJsonString(out, fp.fusers[i].name);
    out += ',';
    AppendKey(out, "version");
    out += fmt::format("{}", fp.fusers[i].version);
    out += '}';
  }
  out += "],";
  AppendKey(out, "max_blocks");
  out += fmt::format("{}", fp.max_blocks);
  if (fp.sync_tail != "burn") {
    out += ',';
    AppendKey(out, "sync_tail");
    AppendJsonString(out, fp.sync_tail);
  }
  if (fp.cpu_math != "u10") {
    out += ',';
    AppendKey(out, "cpu_math");
    AppendJsonString(out, fp.cpu_math);
  }
  out += '}';
  return out;
}

std::string EnvironmentStableId(const EnvironmentFingerprint& fingerprint) {
  return EnvironmentStableIdOfText(CanonicalEnvironmentText(fingerprint));
}

std::string EnvironmentStableIdOfText(std::string_view canonical_text) {
  const XXH128_hash_t h = XXH3_128bits(canonical_text.data(), canonical_text.size());
  return fmt::format("env-{:016x}{:016x}", h.high64, h.low64);
}

std::string EnvironmentDifference(std::string_view here, std::string_view stored) {
  const nlohmann::ordered_json a =
      nlohmann::ordered_json::parse(here, nullptr, /*allow_exceptions=*/false);
  const nlohmann::ordered_json b =
      nlohmann::ordered_json::parse(stored, nullptr, /*allow_exceptions=*/false);
  if (!a.is_object() || !b.is_object()) {
    if (here == stored) return "";
    return fmt::format("{} here, {} in the stored plan's", ShownValue(here), ShownValue(stored));
  }
  const auto shown = [](const nlohmann::ordered_json& object, const std::string& key) {
    const auto it = object.find(key);
    if (it == object.end()) return std::string("none");
    return it->dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  };
  // Keys in this text's order (the struct's), then any only the stored text has.
  std::vector<std::string> keys;
  for (const auto& [key, value] : a.items()) keys.push_back(key);
  for (const auto& [key, value] : b.items()) {
    if (!a.contains(key)) keys.push_back(key);
  }
  std::vector<std::string> parts;
  size_t differing = 0;
  for (const std::string& key : keys) {
    const std::string x = shown(a, key);
    const std::string y = shown(b, key);
    if (x == y) continue;
    if (++differing > kMaxFieldsNamed) continue;
    parts.push_back(fmt::format("{}: {} here, {} in the stored plan's", ShownValue(key),
                                ShownValue(x), ShownValue(y)));
  }
  if (differing > kMaxFieldsNamed) {
    parts.push_back(fmt::format("and {} more fields", differing - kMaxFieldsNamed));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace ember
