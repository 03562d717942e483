// The configuration from arbitrary input (engine/core/config.h): an ember.toml file's text and
// EMBER_* environment overrides. LoadConfig never throws or crashes; every problem is a warning
// in the documented form ("ember: config: ..."); and what it returns holds the invariants the
// engine relies on (max_blocks >= 1).
// Input: the file's text, a NUL byte, then environment lines NAME=VALUE.
#include <map>
#include <string>

#include "engine/core/config.h"
#include "tests/fuzz/fuzz_target.h"

EMBER_FUZZ_TARGET(config) {
  using namespace ember;
  const std::string input(reinterpret_cast<const char*>(data.data()), data.size());
  const size_t split = input.find('\0');
  const std::string text = input.substr(0, split);
  std::map<std::string, std::string, std::less<>> env;
  if (split != std::string::npos) {
    size_t at = split + 1;
    while (at < input.size()) {
      size_t end = input.find('\n', at);
      if (end == std::string::npos) end = input.size();
      const std::string line = input.substr(at, end - at);
      if (const size_t eq = line.find('='); eq != std::string::npos) {
        env[line.substr(0, eq)] = line.substr(eq + 1);
      }
      at = end + 1;
    }
  }
  env["EMBER_CONFIG"] = fuzz::WriteScratchFile(
      "ember.toml", std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  const LoadedConfig loaded = LoadConfig([&](std::string_view name) -> std::optional<std::string> {
    const auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
  for (const std::string& warning : loaded.warnings) {
    if (!warning.starts_with("ember: config: ")) fuzz::Fail("config", "a warning: " + warning);
  }
  if (loaded.config.max_blocks < 1) fuzz::Fail("config", "max_blocks < 1");
}
