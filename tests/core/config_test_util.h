// Helpers for the configuration and log tests: a scratch directory for TOML files and an
// environment that is a plain map (LoadConfig never sees the real one).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "engine/core/config.h"
#include "tests/common/temp_dir.h"

namespace ember::config_test {

using TempDir = ::ember::test::TempDir;

using ::ember::test::ReadFile;

using EnvMap = std::map<std::string, std::string, std::less<>>;

inline EnvLookup EnvFrom(EnvMap vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace ember::config_test
