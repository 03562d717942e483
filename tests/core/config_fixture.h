// ConfigTest: the fixture of the LoadConfig tests (config_*_test.cpp): a TOML file named by
// EMBER_CONFIG in a scratch directory, an environment that is a plain map, and no default file,
// so nothing depends on the machine's EMBER_* variables or the test's working directory.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "engine/core/config.h"
#include "tests/core/config_test_util.h"

namespace ember::config_test {

class ConfigTest : public testing::Test {
 protected:
  // Loads `toml` as the file named by EMBER_CONFIG, plus `env`.
  LoadedConfig LoadToml(std::string_view toml, EnvMap env = {}) {
    path_ = dir_.Write("ember.toml", toml);
    env["EMBER_CONFIG"] = path_;
    return LoadConfig(EnvFrom(std::move(env)), NoDefaultFile());
  }

  LoadedConfig LoadEnv(EnvMap env) { return LoadConfig(EnvFrom(std::move(env)), NoDefaultFile()); }

  // A default file that does not exist, so ./ember.toml of the test's directory never leaks in.
  std::filesystem::path NoDefaultFile() const { return dir_.path() / "absent.toml"; }

  // The warning LoadToml's file gives for `what` at `line`.
  std::string FileWarning(int line, std::string_view what) const {
    return fmt::format("ember: config: {}:{}: {}", path_, line, what);
  }

  TempDir dir_;
  std::string path_;
};

}  // namespace ember::config_test
