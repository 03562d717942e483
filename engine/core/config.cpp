#include "engine/core/config.h"

#include <fmt/format.h>

#include <toml++/toml.h>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <mutex>
#include <sstream>
#include <system_error>

#include "engine/core/log.h"

namespace ember {
namespace {

constexpr std::string_view kUnlimited = "unlimited";
// The shared-memory tier's longest wait for a sibling's exploration (a minute: longer means
// something is stuck). Its sizes are bounded by kMinShmBytes and kMaxShmBytes (config.h).
constexpr uint64_t kMaxWaitMs = 60000;

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Double-quoted, escaped as in TOML basic strings, so a warning shows exactly what was given.
std::string Quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04X}", static_cast<int>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// on|off|1|0|true|false, case-insensitive.
std::optional<bool> ParseSwitch(std::string_view text) {
  const std::string lower = Lower(text);
  if (lower == "on" || lower == "1" || lower == "true") return true;
  if (lower == "off" || lower == "0" || lower == "false") return false;
  return std::nullopt;
}

// Decimal digits only: no sign, no spaces, no overflow.
std::optional<uint64_t> ParseUnsigned(std::string_view text) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::string ExplorationsName(const std::optional<size_t>& value) {
  return value ? std::to_string(*value) : std::string(kUnlimited);
}

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

  void Read(const toml::table& root) {
    CheckKeys(root, "", {"fusion", "store"});
    if (const toml::table* fusion = Table(root, "", "fusion")) {
      CheckKeys(*fusion, "fusion", {"enabled", "search", "log"});
      ReadBool(*fusion, "fusion", "enabled", config_.fusion_enabled);
      if (const toml::table* search = Table(*fusion, "fusion", "search")) {
        CheckKeys(*search, "fusion.search", {"max_blocks", "max_explorations"});
        ReadMaxBlocks(*search);
        ReadMaxExplorations(*search);
      }
      if (const toml::table* log = Table(*fusion, "fusion", "log")) {
        CheckKeys(*log, "fusion.log", {"level", "file"});
        ReadLevel(*log);
        ReadString(*log, "fusion.log", "file", config_.log_file, "stderr");
      }
    }
    if (const toml::table* store = Table(root, "", "store")) {
      CheckKeys(*store, "store",
                {"path", "plan_db", "workload", "allow_shared_writable", "shm", "shm_bytes",
                 "shm_wait_ms"});
      // `path` is the documented name; `plan_db` is its older spelling.
      ReadPlanDb(*store, "plan_db");
      ReadPlanDb(*store, "path");
      ReadString(*store, "store", "workload", config_.workload, "the executable's name");
      ReadBool(*store, "store", "allow_shared_writable", config_.allow_shared_writable);
      ReadBool(*store, "store", "shm", config_.shm);
      ReadShmBytes(*store);
      ReadShmWait(*store);
    }
  }

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

  void Bad(const toml::node& node, std::string_view table, std::string_view key,
           std::string_view expected, std::string_view kept) {
    warnings_.Add(fmt::format("{}: {} must be {}, got {}; using {}", Where(node.source()),
                              KeyName(table, key), expected, Describe(node), kept));
  }

  void CheckKeys(const toml::table& table, std::string_view path,
                 std::initializer_list<std::string_view> known) {
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

  void ReadBool(const toml::table& table, std::string_view path, std::string_view key, bool& out) {
    const toml::node* node = table.get(key);
    if (node == nullptr) return;
    if (auto value = node->value_exact<bool>()) {
      out = *value;
      return;
    }
    Bad(*node, path, key, "true or false", out ? "true" : "false");
  }

  // `empty_means` is what an empty `out` stands for, so that the warning names what is used
  // ("using stderr"), not `using ""`.
  void ReadString(const toml::table& table, std::string_view path, std::string_view key,
                  std::string& out, std::string_view empty_means) {
    const toml::node* node = table.get(key);
    if (node == nullptr) return;
    if (auto value = node->value_exact<std::string>()) {
      out = *value;
      return;
    }
    Bad(*node, path, key, "a string", out.empty() ? std::string(empty_means) : Quote(out));
  }

  // [store] path or plan_db: a path or "off". An empty string would silently stand for the
  // default path, so it is reported like a value of the wrong type.
  void ReadPlanDb(const toml::table& store, std::string_view key) {
    const toml::node* node = store.get(key);
    if (node == nullptr) return;
    if (auto value = node->value_exact<std::string>(); value && !value->empty()) {
      config_.plan_db = *value;
      return;
    }
    const std::string used = config_.plan_db.empty()
                                 ? fmt::format("{} (the default)", Quote(kDefaultPlanDbPath))
                                 : Quote(config_.plan_db);
    Bad(*node, "store", key, "a path or \"off\"", used);
  }

  void ReadMaxBlocks(const toml::table& search) {
    const toml::node* node = search.get("max_blocks");
    if (node == nullptr) return;
    if (auto value = node->value_exact<int64_t>(); value && *value >= 1) {
      config_.max_blocks = static_cast<size_t>(*value);
      return;
    }
    Bad(*node, "fusion.search", "max_blocks", "a positive integer",
        std::to_string(config_.max_blocks));
  }

  void ReadMaxExplorations(const toml::table& search) {
    const toml::node* node = search.get("max_explorations");
    if (node == nullptr) return;
    if (auto value = node->value_exact<int64_t>(); value && *value >= 0) {
      config_.max_explorations = static_cast<size_t>(*value);
      return;
    }
    if (auto text = node->value_exact<std::string>(); text && Lower(*text) == kUnlimited) {
      config_.max_explorations = std::nullopt;
      return;
    }
    Bad(*node, "fusion.search", "max_explorations", "a non-negative integer or \"unlimited\"",
        ExplorationsName(config_.max_explorations));
  }

  void ReadShmBytes(const toml::table& store) {
    const toml::node* node = store.get("shm_bytes");
    if (node == nullptr) return;
    const std::optional<int64_t> value = node->value_exact<int64_t>();
    if (value && *value >= static_cast<int64_t>(kMinShmBytes) &&
        *value <= static_cast<int64_t>(kMaxShmBytes)) {
      config_.shm_bytes = static_cast<uint64_t>(*value);
      return;
    }
    Bad(*node, "store", "shm_bytes",
        fmt::format("an integer from {} to {}", kMinShmBytes, kMaxShmBytes),
        std::to_string(config_.shm_bytes));
  }

  void ReadShmWait(const toml::table& store) {
    const toml::node* node = store.get("shm_wait_ms");
    if (node == nullptr) return;
    if (auto value = node->value_exact<int64_t>();
        value && *value >= 0 && *value <= static_cast<int64_t>(kMaxWaitMs)) {
      config_.shm_wait_ms = static_cast<uint32_t>(*value);
      return;
    }
    Bad(*node, "store", "shm_wait_ms", fmt::format("an integer from 0 to {}", kMaxWaitMs),
        std::to_string(config_.shm_wait_ms));
  }

  void ReadLevel(const toml::table& log) {
    const toml::node* node = log.get("level");
    if (node == nullptr) return;
    if (auto text = node->value_exact<std::string>()) {
      if (std::optional<LogLevel> level = ParseLogLevel(*text)) {
        config_.log_level = *level;
        return;
      }
    }
    Bad(*node, "fusion.log", "level", "\"disabled\", \"basic\", \"medium\" or \"full\"",
        LogLevelName(config_.log_level));
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

void ApplySwitch(const EnvLookup& env, std::string_view name, bool& out, Warnings& warnings) {
  const std::optional<std::string> text = Get(env, name);
  if (!text) return;
  if (std::optional<bool> value = ParseSwitch(*text)) {
    out = *value;
    return;
  }
  warnings.Add(fmt::format("{} must be on, off, 1, 0, true or false, got {}; using {}", name,
                           Quote(*text), out ? "on" : "off"));
}

void ApplyEnvironment(const EnvLookup& env, Config& config, Warnings& warnings) {
  ApplySwitch(env, "EMBER_FUSION", config.fusion_enabled, warnings);

  if (std::optional<std::string> text = Get(env, "EMBER_MAX_BLOCKS")) {
    if (std::optional<uint64_t> value = ParseUnsigned(*text); value && *value >= 1) {
      config.max_blocks = static_cast<size_t>(*value);
    } else {
      warnings.Add(fmt::format("EMBER_MAX_BLOCKS must be a positive integer, got {}; using {}",
                               Quote(*text), config.max_blocks));
    }
  }

  // burn ignores a value that does not parse without a word; ember says so (Note [Config
  // errors]).
  if (std::optional<std::string> text = Get(env, "EMBER_MAX_EXPLORATIONS")) {
    if (std::optional<uint64_t> value = ParseUnsigned(*text)) {
      config.max_explorations = static_cast<size_t>(*value);
    } else if (Lower(*text) == kUnlimited) {
      config.max_explorations = std::nullopt;
    } else {
      warnings.Add(fmt::format(
          "EMBER_MAX_EXPLORATIONS must be a non-negative integer or \"unlimited\", got {}; "
          "using {}",
          Quote(*text), ExplorationsName(config.max_explorations)));
    }
  }

  // burn's rule: an unknown spelling keeps the configured level.
  if (std::optional<std::string> text = Get(env, "EMBER_LOG")) {
    if (std::optional<LogLevel> level = ParseLogLevel(*text)) {
      config.log_level = *level;
    } else {
      warnings.Add(fmt::format(
          "EMBER_LOG must be disabled, off, 0, basic, medium, full or 1, got {}; using {}",
          Quote(*text), LogLevelName(config.log_level)));
    }
  }

  if (std::optional<std::string> text = Get(env, "EMBER_PLAN_DB")) config.plan_db = *text;
  if (std::optional<std::string> text = Get(env, "EMBER_WORKLOAD")) config.workload = *text;
  ApplySwitch(env, "EMBER_ALLOW_SHARED_WRITABLE", config.allow_shared_writable, warnings);
  ApplySwitch(env, "EMBER_SHM", config.shm, warnings);
  if (std::optional<std::string> text = Get(env, "EMBER_SHM_BYTES")) {
    if (std::optional<uint64_t> value = ParseUnsigned(*text);
        value && *value >= kMinShmBytes && *value <= kMaxShmBytes) {
      config.shm_bytes = *value;
    } else {
      warnings.Add(fmt::format("EMBER_SHM_BYTES must be an integer from {} to {}, got {}; using {}",
                               kMinShmBytes, kMaxShmBytes, Quote(*text), config.shm_bytes));
    }
  }
  if (std::optional<std::string> text = Get(env, "EMBER_SHM_WAIT_MS")) {
    if (std::optional<uint64_t> value = ParseUnsigned(*text); value && *value <= kMaxWaitMs) {
      config.shm_wait_ms = static_cast<uint32_t>(*value);
    } else {
      warnings.Add(
          fmt::format("EMBER_SHM_WAIT_MS must be an integer from 0 to {}, got {}; using {}",
                      kMaxWaitMs, Quote(*text), config.shm_wait_ms));
    }
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
