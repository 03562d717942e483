#include "engine/core/config.h"

#include "engine/core/plan_db_location.h"

#include <fmt/format.h>

#include <toml++/toml.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <system_error>

#include "engine/core/config_settings.h"
#include "engine/core/log.h"
#include "engine/core/printable.h"

namespace ember {
namespace {

using config_settings::FromText;
using config_settings::FromToml;
using config_settings::Kind;
using config_settings::Layer;
using config_settings::Lower;
using config_settings::ParentTable;
using config_settings::Quote;
using config_settings::Refusal;
using config_settings::Setting;
using config_settings::Settings;
using config_settings::TableName;
using config_settings::Tables;
using config_settings::Value;

// Collects the warnings of one LoadConfig call (Note [Config errors]).
class Warnings {
 public:
  explicit Warnings(std::vector<std::string>& out) : out_(out) {}
  // `what` starts with where the value came from: "ember.toml:3: ...", "EMBER_LOG ...".
  void Add(std::string_view what) { out_.push_back(fmt::format("ember: config: {}", what)); }

 private:
  std::vector<std::string>& out_;
};

// ---------------------------------------------------------------------------------------------
// The file layer.

// Reads the keys of ember.toml into a Config, one table at a time. Every key it does not know is
// reported; every value of the wrong type or range is reported and leaves the field as it was.
class FileLayer {
 public:
  FileLayer(std::string display, Config& config, Warnings& warnings)
      : display_(std::move(display)), config_(config), warnings_(warnings) {}

  void Read(const toml::table& root) { ReadTable(root, ""); }

 private:
  // "[fusion.search] max_blocks", or just "fusion" at the top level.
  static std::string KeyName(std::string_view table, std::string_view key) {
    return table.empty() ? std::string(key) : fmt::format("[{}] {}", table, key);
  }

  // The value as the user wrote it: strings quoted, numbers and booleans as TOML prints them.
  static std::string Describe(const toml::node& node) {
    if (node.is_table()) return "a table";
    if (node.is_array()) return "an array";
    // toml++ would print 'abc' (a literal string); the double-quoted form is the common one.
    if (auto text = node.value_exact<std::string>()) return Quote(*text);
    std::ostringstream out;
    node.visit([&out](const auto& value) { out << value; });
    return out.str();
  }

  std::string Where(const toml::source_region& source) const {
    if (source.begin.line == 0) return display_;
    return fmt::format("{}:{}", display_, source.begin.line);
  }

  // The settings of the table at `path` ("" for the top level), then its subtables; keys that
  // are neither are reported.
  void ReadTable(const toml::table& table, std::string_view path) {
    std::vector<std::string_view> known;
    for (const Setting& setting : Settings()) {
      if (setting.table == path) known.push_back(setting.key);
    }
    for (std::string_view child : Tables()) {
      if (ParentTable(child) == path) known.push_back(TableName(child));
    }
    CheckKeys(table, path, known);
    for (const Setting& setting : Settings()) {
      if (setting.table != path) continue;
      const toml::node* node = table.get(setting.key);
      if (node == nullptr) continue;
      if (std::optional<Value> value = FromToml(setting, *node)) {
        setting.set(config_, *value);
        continue;
      }
      const std::string subject =
          fmt::format("{}: {}", Where(node->source()), KeyName(path, setting.key));
      warnings_.Add(Refusal(setting, Layer::kFile, subject, Describe(*node), config_));
    }
    for (std::string_view child : Tables()) {
      if (ParentTable(child) != path) continue;
      if (const toml::table* subtable = Table(table, path, TableName(child))) {
        ReadTable(*subtable, child);
      }
    }
  }

  void CheckKeys(const toml::table& table, std::string_view path,
                 const std::vector<std::string_view>& known) {
    for (auto&& [key, node] : table) {
      bool is_known = false;
      for (std::string_view name : known) is_known = is_known || key.str() == name;
      if (is_known) continue;
      const std::string what =
          node.is_table()
              ? fmt::format("unknown table [{}{}{}]", path, path.empty() ? "" : ".", key.str())
              : fmt::format("unknown key {}", KeyName(path, key.str()));
      warnings_.Add(fmt::format("{}: {}; ignored", Where(key.source()), what));
    }
  }

  const toml::table* Table(const toml::table& parent, std::string_view path, std::string_view key) {
    const toml::node* node = parent.get(key);
    if (node == nullptr) return nullptr;
    if (const toml::table* table = node->as_table()) return table;
    warnings_.Add(fmt::format("{}: {} must be a table, got {}; ignored", Where(node->source()),
                              KeyName(path, key), Describe(*node)));
    return nullptr;
  }

  std::string display_;
  Config& config_;
  Warnings& warnings_;
};

// Reads and applies one file. A file that cannot be read or parsed is reported and skipped
// (false); its keys are then all at their defaults, and the environment still applies.
bool ApplyFile(const std::string& path, std::string_view named_by, Config& config,
               Warnings& warnings) {
  std::ifstream in(path, std::ios::binary);
  std::string reason;
  if (!in) {
    reason = std::generic_category().message(errno);
  } else if (std::error_code ec; std::filesystem::is_directory(path, ec)) {
    // Linux opens a directory for reading; the read would then return nothing.
    reason = "it is a directory";
  }
  if (!reason.empty()) {
    warnings.Add(
        fmt::format("{}: cannot read the file{} ({}); it is ignored", path, named_by, reason));
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  toml::table root;
  try {
    root = toml::parse(text.str(), path);
  } catch (const toml::parse_error& error) {
    const toml::source_position& at = error.source().begin;
    warnings.Add(fmt::format("{}:{}:{}: malformed TOML: {}; the file is ignored", path, at.line,
                             at.column, error.description()));
    return false;
  }
  FileLayer(path, config, warnings).Read(root);
  return true;
}

// ---------------------------------------------------------------------------------------------
// The environment layer.

// An empty value counts as unset, so `EMBER_LOG= prog` means "no override".
std::optional<std::string> Get(const EnvLookup& env, std::string_view name) {
  std::optional<std::string> value = env(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

void ApplyEnvironment(const EnvLookup& env, Config& config, Warnings& warnings) {
  for (const Setting& setting : Settings()) {
    if (setting.variable.empty()) continue;
    const std::optional<std::string> text = Get(env, setting.variable);
    if (!text) continue;
    if (std::optional<Value> value = FromText(setting, *text)) {
      setting.set(config, *value);
      continue;
    }
    warnings.Add(Refusal(setting, Layer::kEnvironment, setting.variable, Quote(*text), config));
  }
}

// ---------------------------------------------------------------------------------------------
// The process-wide copy.

std::once_flag g_once;
// Never freed: threads may log while statics are being destroyed.
Config* g_config = nullptr;

void LoadGlobalConfig() {
  LoadedConfig loaded = LoadConfig(ProcessEnv);
  for (const std::string& warning : loaded.warnings) {
    std::fprintf(stderr, "%s\n", warning.c_str());
  }
  std::fflush(stderr);
  g_config = new Config(std::move(loaded.config));
}

}  // namespace

std::string_view LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDisabled: return "disabled";
    case LogLevel::kBasic: return "basic";
    case LogLevel::kMedium: return "medium";
    case LogLevel::kFull: return "full";
  }
  return "?";
}

std::optional<LogLevel> ParseLogLevel(std::string_view text) {
  const std::string lower = Lower(text);
  if (lower == "disabled" || lower == "off" || lower == "0") return LogLevel::kDisabled;
  if (lower == "basic") return LogLevel::kBasic;
  if (lower == "medium") return LogLevel::kMedium;
  if (lower == "full" || lower == "1") return LogLevel::kFull;
  return std::nullopt;
}

std::string_view CpuMathName(CpuMath math) {
  switch (math) {
    case CpuMath::kU10: return "u10";
    case CpuMath::kU35: return "u35";
  }
  return "?";
}

std::optional<CpuMath> ParseCpuMath(std::string_view text) {
  const std::string lower = Lower(text);
  if (lower == "u10") return CpuMath::kU10;
  if (lower == "u35") return CpuMath::kU35;
  return std::nullopt;
}

std::optional<std::string> ProcessEnv(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

LoadedConfig LoadConfig(const EnvLookup& env, const std::filesystem::path& default_file) {
  LoadedConfig loaded;
  Warnings warnings(loaded.warnings);
  if (std::optional<std::string> named = Get(env, "EMBER_CONFIG")) {
    if (ApplyFile(*named, " named by EMBER_CONFIG", loaded.config, warnings)) {
      loaded.file = *named;
    }
  } else if (std::error_code ec; std::filesystem::exists(default_file, ec)) {
    if (ApplyFile(default_file.string(), "", loaded.config, warnings)) {
      loaded.file = default_file.string();
    }
  }
  ApplyEnvironment(env, loaded.config, warnings);
  return loaded;
}

std::vector<ConfigSetting> ConfigSettings() {
  std::vector<ConfigSetting> out;
  for (const Setting& setting : Settings()) {
    const bool integer =
        setting.kind == Kind::kInteger || setting.kind == Kind::kIntegerOrUnlimited;
    out.push_back({.table = setting.table,
                   .key = setting.key,
                   .variable = setting.variable,
                   .integer = integer,
                   .min = integer ? setting.min : 0,
                   .max = integer ? setting.max : 0});
  }
  return out;
}

const Config& GlobalConfig() {
  std::call_once(g_once, LoadGlobalConfig);
  return *g_config;
}

void SetGlobalConfigForTesting(Config config) {
  bool installed = false;
  // A test that sets the configuration first never reads the real environment.
  std::call_once(g_once, [&] {
    g_config = new Config(config);
    installed = true;
  });
  if (!installed) *g_config = std::move(config);
  internal::ResetLogState();
}

}  // namespace ember
