#include "engine/core/config.h"

#include "engine/core/plan_db_location.h"

#include <fmt/format.h>

#include <toml++/toml.h>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <mutex>
#include <sstream>
#include <system_error>

#include "engine/core/log.h"
#include "engine/core/printable.h"

namespace ember {
namespace {

constexpr std::string_view kUnlimited = "unlimited";
// The shared-memory tier's longest wait for a sibling's exploration (a minute: longer means
// something is stuck). Its sizes are bounded by kMinShmBytes and kMaxShmBytes (config.h).
constexpr uint64_t kMaxWaitMs = 60000;
// Launch records are a few hundred bytes each: a million is far past any steady state.
constexpr uint64_t kMaxLaunchRecords = 1 << 20;

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Double-quoted, with a quote, a backslash and anything a terminal would act on escaped
// (Printable), so a warning shows exactly what was given and nothing else.
std::string Quote(std::string_view text) {
  std::string out = "\"";
  for (char c : Printable(text)) {
    if (c == '"') out += '\\';
    out += c;
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
// The settings: one table that both layers read.

// How a setting's value is written, and so parsed.
enum class Kind {
  kSwitch,              // file: true or false; environment: on|off|1|0|true|false
  kInteger,             // an integer from the setting's min to its max
  kIntegerOrUnlimited,  // the same, or "unlimited" in any case
  kLevel,               // a level (ParseLogLevel)
  kString,              // any string
  kName,                // a name stored and shown everywhere: UTF-8 without controls, bounded
  kPath,                // a non-empty string: a path or "off"
};

// A setting's value in the one shape every kind fits.
struct Value {
  bool on = false;                       // kSwitch
  std::optional<uint64_t> number;        // kInteger, kIntegerOrUnlimited; nullopt: unlimited
  LogLevel level = LogLevel::kDisabled;  // kLevel
  std::string text;                      // kString, kPath
};

// One setting: its key in the file, its environment variable, how its value is parsed and
// bounded, and the Config field it reads and sets.
struct Setting {
  std::string_view table;     // "fusion.search"
  std::string_view key;       // "max_blocks"
  std::string_view variable;  // "EMBER_MAX_BLOCKS"; empty when only the file sets it
  Kind kind = Kind::kString;
  uint64_t min = 0;  // kInteger, kIntegerOrUnlimited: the accepted range, from either layer
  uint64_t max = std::numeric_limits<uint64_t>::max();
  // kString: what an empty value stands for in a warning ("using stderr", not `using ""`).
  std::string_view empty_means;
  Value (*get)(const Config&) = nullptr;
  void (*set)(Config&, const Value&) = nullptr;
};

// In the file's order, which is the order of the warnings too. The environment reads the rows
// that name a variable, in the same order.
constexpr Setting kSettings[] = {
    {.table = "fusion",
     .key = "enabled",
     .variable = "EMBER_FUSION",
     .kind = Kind::kSwitch,
     .get = [](const Config& c) { return Value{.on = c.fusion_enabled}; },
     .set = [](Config& c, const Value& v) { c.fusion_enabled = v.on; }},
    {.table = "fusion.search",
     .key = "max_blocks",
     .variable = "EMBER_MAX_BLOCKS",
     .kind = Kind::kInteger,
     .min = 1,
     .get = [](const Config& c) { return Value{.number = c.max_blocks}; },
     .set = [](Config& c, const Value& v) { c.max_blocks = static_cast<size_t>(*v.number); }},
    // burn ignores an exploration cap that does not parse without a word; ember says so.
    {.table = "fusion.search",
     .key = "max_explorations",
     .variable = "EMBER_MAX_EXPLORATIONS",
     .kind = Kind::kIntegerOrUnlimited,
     .get = [](const Config& c) { return Value{.number = c.max_explorations}; },
     .set = [](Config& c, const Value& v) { c.max_explorations = v.number; }},
    // burn's rule: an unknown spelling keeps the configured level.
    {.table = "fusion.log",
     .key = "level",
     .variable = "EMBER_LOG",
     .kind = Kind::kLevel,
     .get = [](const Config& c) { return Value{.level = c.log_level}; },
     .set = [](Config& c, const Value& v) { c.log_level = v.level; }},
    {.table = "fusion.log",
     .key = "file",
     .kind = Kind::kString,
     .empty_means = "stderr",
     .get = [](const Config& c) { return Value{.text = c.log_file}; },
     .set = [](Config& c, const Value& v) { c.log_file = v.text; }},
    // `path` is the documented name; `plan_db` is its older spelling, read before it.
    {.table = "store",
     .key = "plan_db",
     .kind = Kind::kPath,
     .get = [](const Config& c) { return Value{.text = c.plan_db}; },
     .set = [](Config& c, const Value& v) { c.plan_db = v.text; }},
    {.table = "store",
     .key = "path",
     .variable = "EMBER_PLAN_DB",
     .kind = Kind::kPath,
     .get = [](const Config& c) { return Value{.text = c.plan_db}; },
     .set = [](Config& c, const Value& v) { c.plan_db = v.text; }},
    {.table = "store",
     .key = "workload",
     .variable = "EMBER_WORKLOAD",
     .kind = Kind::kName,
     .empty_means = "the executable's name",
     .get = [](const Config& c) { return Value{.text = c.workload}; },
     .set = [](Config& c, const Value& v) { c.workload = v.text; }},
    {.table = "store",
     .key = "allow_shared_writable",
     .variable = "EMBER_ALLOW_SHARED_WRITABLE",
     .kind = Kind::kSwitch,
     .get = [](const Config& c) { return Value{.on = c.allow_shared_writable}; },
     .set = [](Config& c, const Value& v) { c.allow_shared_writable = v.on; }},
    {.table = "store",
     .key = "shm",
     .variable = "EMBER_SHM",
     .kind = Kind::kSwitch,
     .get = [](const Config& c) { return Value{.on = c.shm}; },
     .set = [](Config& c, const Value& v) { c.shm = v.on; }},
    {.table = "store",
     .key = "shm_bytes",
     .variable = "EMBER_SHM_BYTES",
     .kind = Kind::kInteger,
     .min = kMinShmBytes,
     .max = kMaxShmBytes,
     .get = [](const Config& c) { return Value{.number = c.shm_bytes}; },
     .set = [](Config& c, const Value& v) { c.shm_bytes = *v.number; }},
    {.table = "store",
     .key = "shm_wait_ms",
     .variable = "EMBER_SHM_WAIT_MS",
     .kind = Kind::kInteger,
     .max = kMaxWaitMs,
     .get = [](const Config& c) { return Value{.number = c.shm_wait_ms}; },
     .set = [](Config& c, const Value& v) { c.shm_wait_ms = static_cast<uint32_t>(*v.number); }},
    {.table = "runtime",
     .key = "launch_records",
     .variable = "EMBER_LAUNCH_RECORDS",
     .kind = Kind::kInteger,
     .max = kMaxLaunchRecords,
     .get = [](const Config& c) { return Value{.number = c.launch_records}; },
     .set = [](Config& c, const Value& v) { c.launch_records = static_cast<size_t>(*v.number); }},
};

// The tables of the file, each after its parent.
constexpr std::string_view kTables[] = {"fusion", "fusion.search", "fusion.log", "store",
                                        "runtime"};

// "fusion" for "fusion.search", "" for "fusion".
std::string_view ParentTable(std::string_view table) {
  const size_t dot = table.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : table.substr(0, dot);
}

// "search" for "fusion.search".
std::string_view TableName(std::string_view table) {
  const size_t dot = table.rfind('.');
  return dot == std::string_view::npos ? table : table.substr(dot + 1);
}

// Where a warning says a value came from; the two layers spell switches and levels differently.
enum class Layer { kFile, kEnvironment };

// `number` as a value of `setting`, or nullopt when it is out of the setting's range.
std::optional<Value> InRange(const Setting& setting, uint64_t number) {
  if (number < setting.min || number > setting.max) return std::nullopt;
  return Value{.number = number};
}

bool IsUnlimited(std::string_view text) { return Lower(text) == kUnlimited; }

// The value an environment variable gives `setting`, or nullopt when the text does not parse
// or is out of range. Also the file's reading of kinds written as TOML strings.
std::optional<Value> FromText(const Setting& setting, std::string_view text) {
  switch (setting.kind) {
    case Kind::kSwitch:
      if (std::optional<bool> on = ParseSwitch(text)) return Value{.on = *on};
      return std::nullopt;
    case Kind::kInteger:
    case Kind::kIntegerOrUnlimited:
      if (std::optional<uint64_t> number = ParseUnsigned(text)) return InRange(setting, *number);
      if (setting.kind == Kind::kIntegerOrUnlimited && IsUnlimited(text)) return Value{};
      return std::nullopt;
    case Kind::kLevel:
      if (std::optional<LogLevel> level = ParseLogLevel(text)) return Value{.level = *level};
      return std::nullopt;
    case Kind::kString: return Value{.text = std::string(text)};
    case Kind::kName:
      // SQLite would store any bytes and PostgreSQL refuse them (its text is UTF-8), so such a
      // name is refused here, once, for both.
      if (!IsShowableName(text)) return std::nullopt;
      return Value{.text = std::string(text)};
    case Kind::kPath:
      // An empty path would silently stand for the default one.
      if (text.empty()) return std::nullopt;
      return Value{.text = std::string(text)};
  }
  return std::nullopt;
}

// The value a TOML node gives `setting`, or nullopt when it is of the wrong type or range.
std::optional<Value> FromToml(const Setting& setting, const toml::node& node) {
  const std::optional<std::string> text = node.value_exact<std::string>();
  switch (setting.kind) {
    case Kind::kSwitch:
      if (std::optional<bool> on = node.value_exact<bool>()) return Value{.on = *on};
      return std::nullopt;
    case Kind::kInteger:
    case Kind::kIntegerOrUnlimited:
      if (std::optional<int64_t> number = node.value_exact<int64_t>()) {
        if (*number < 0) return std::nullopt;
        return InRange(setting, static_cast<uint64_t>(*number));
      }
      if (setting.kind == Kind::kIntegerOrUnlimited && text && IsUnlimited(*text)) return Value{};
      return std::nullopt;
    case Kind::kLevel:
    case Kind::kString:
    case Kind::kName:
    case Kind::kPath:
      if (text) return FromText(setting, *text);
      return std::nullopt;
  }
  return std::nullopt;
}

// "a positive integer", "an integer from 0 to 60000".
std::string RangeText(const Setting& setting) {
  if (setting.max != std::numeric_limits<uint64_t>::max()) {
    return fmt::format("an integer from {} to {}", setting.min, setting.max);
  }
  if (setting.min == 0) return "a non-negative integer";
  if (setting.min == 1) return "a positive integer";
  return fmt::format("an integer of at least {}", setting.min);
}

// What `setting` accepts, as the warnings of `layer` say it.
std::string Expected(const Setting& setting, Layer layer) {
  switch (setting.kind) {
    case Kind::kSwitch:
      return layer == Layer::kFile ? "true or false" : "on, off, 1, 0, true or false";
    case Kind::kInteger: return RangeText(setting);
    case Kind::kIntegerOrUnlimited:
      return fmt::format("{} or \"{}\"", RangeText(setting), kUnlimited);
    case Kind::kLevel:
      return layer == Layer::kFile ? "\"disabled\", \"basic\", \"medium\" or \"full\""
                                   : "disabled, off, 0, basic, medium, full or 1";
    case Kind::kString: return "a string";
    case Kind::kName:
      return fmt::format("UTF-8 text of at most {} bytes without control characters",
                         kMaxNameBytes);
    case Kind::kPath: return "a path or \"off\"";
  }
  return "";
}

// The value that stays in force, as the warnings of `layer` show it.
std::string Shown(const Setting& setting, const Value& value, Layer layer) {
  switch (setting.kind) {
    case Kind::kSwitch:
      if (layer == Layer::kFile) return value.on ? "true" : "false";
      return value.on ? "on" : "off";
    case Kind::kInteger:
    case Kind::kIntegerOrUnlimited:
      return value.number ? std::to_string(*value.number) : std::string(kUnlimited);
    case Kind::kLevel: return std::string(LogLevelName(value.level));
    case Kind::kString:
    case Kind::kName:
      return value.text.empty() ? std::string(setting.empty_means) : Quote(value.text);
    case Kind::kPath:
      if (value.text.empty()) return fmt::format("{} (the default)", Quote(kDefaultPlanDbPath));
      return Quote(ShownLocation(value.text));
  }
  return "";
}

// The warning for a value of `setting` that `layer` gave and that was refused (Note [Config
// errors]): "<subject> must be <expected>, got <given>; using <the value that stays>".
std::string Refusal(const Setting& setting, Layer layer, std::string_view subject,
                    std::string_view given, const Config& config) {
  return fmt::format("{} must be {}, got {}; using {}", subject, Expected(setting, layer), given,
                     Shown(setting, setting.get(config), layer));
}

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
    for (const Setting& setting : kSettings) {
      if (setting.table == path) known.push_back(setting.key);
    }
    for (std::string_view child : kTables) {
      if (ParentTable(child) == path) known.push_back(TableName(child));
    }
    CheckKeys(table, path, known);
    for (const Setting& setting : kSettings) {
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
    for (std::string_view child : kTables) {
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
  for (const Setting& setting : kSettings) {
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
  for (const Setting& setting : kSettings) {
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
