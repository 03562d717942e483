#include "engine/core/config_settings.h"

#include <charconv>
#include <system_error>

#include <fmt/format.h>

#include "engine/core/plan_db_location.h"
#include "engine/core/printable.h"

namespace ember::config_settings {
namespace {

constexpr std::string_view kUnlimited = "unlimited";
// The shared-memory tier's longest wait for a sibling's exploration (a minute: longer means
// something is stuck). Its sizes are bounded by kMinShmBytes and kMaxShmBytes (config.h).
constexpr uint64_t kMaxWaitMs = 60000;
// Launch records are a few hundred bytes each: a million is far past any steady state.
constexpr uint64_t kMaxLaunchRecords = 1 << 20;
constexpr uint64_t kMaxGraphAfter = 1000;
constexpr uint64_t kMaxGraphCache = 4096;

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

// Settings()'s rows (config_settings.h says their order).
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
    {.table = "fusion.search",
     .key = "search_sync_tail",
     .variable = "EMBER_SEARCH_SYNC_TAIL",
     .kind = Kind::kSwitch,
     .get = [](const Config& c) { return Value{.on = c.search_sync_tail}; },
     .set = [](Config& c, const Value& v) { c.search_sync_tail = v.on; }},
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
    {.table = "runtime",
     .key = "graphs",
     .variable = "EMBER_GRAPHS",
     .kind = Kind::kSwitch,
     .get = [](const Config& c) { return Value{.on = c.graphs}; },
     .set = [](Config& c, const Value& v) { c.graphs = v.on; }},
    {.table = "runtime",
     .key = "graph_after",
     .variable = "EMBER_GRAPH_AFTER",
     .kind = Kind::kInteger,
     .min = 1,
     .max = kMaxGraphAfter,
     .get = [](const Config& c) { return Value{.number = c.graph_after}; },
     .set = [](Config& c, const Value& v) { c.graph_after = static_cast<uint32_t>(*v.number); }},
    {.table = "runtime",
     .key = "graph_cache",
     .variable = "EMBER_GRAPH_CACHE",
     .kind = Kind::kInteger,
     .min = 1,
     .max = kMaxGraphCache,
     .get = [](const Config& c) { return Value{.number = c.graph_cache}; },
     .set = [](Config& c, const Value& v) { c.graph_cache = static_cast<size_t>(*v.number); }},
    {.table = "cpu",
     .key = "math",
     .variable = "EMBER_CPU_MATH",
     .kind = Kind::kCpuMath,
     .get = [](const Config& c) { return Value{.math = c.cpu_math}; },
     .set = [](Config& c, const Value& v) { c.cpu_math = v.math; }},
};

constexpr std::string_view kTables[] = {"fusion", "fusion.search", "fusion.log",
                                        "store",  "runtime",       "cpu"};

// `number` as a value of `setting`, or nullopt when it is out of the setting's range.
std::optional<Value> InRange(const Setting& setting, uint64_t number) {
  if (number < setting.min || number > setting.max) return std::nullopt;
  return Value{.number = number};
}

bool IsUnlimited(std::string_view text) { return Lower(text) == kUnlimited; }

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
    case Kind::kCpuMath: return layer == Layer::kFile ? "\"u10\" or \"u35\"" : "u10 or u35";
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
    case Kind::kCpuMath: return std::string(CpuMathName(value.math));
    case Kind::kString:
    case Kind::kName:
      return value.text.empty() ? std::string(setting.empty_means) : Quote(value.text);
    case Kind::kPath:
      if (value.text.empty()) return fmt::format("{} (the default)", Quote(kDefaultPlanDbPath));
      return Quote(ShownLocation(value.text));
  }
  return "";
}

}  // namespace

std::span<const Setting> Settings() { return kSettings; }

std::span<const std::string_view> Tables() { return kTables; }

std::string_view ParentTable(std::string_view table) {
  const size_t dot = table.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : table.substr(0, dot);
}

std::string_view TableName(std::string_view table) {
  const size_t dot = table.rfind('.');
  return dot == std::string_view::npos ? table : table.substr(dot + 1);
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string Quote(std::string_view text) {
  std::string out = "\"";
  for (char c : Printable(text)) {
    if (c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}

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
    case Kind::kCpuMath:
      if (std::optional<CpuMath> math = ParseCpuMath(text)) return Value{.math = *math};
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
    case Kind::kCpuMath:
    case Kind::kString:
    case Kind::kName:
    case Kind::kPath:
      if (text) return FromText(setting, *text);
      return std::nullopt;
  }
  return std::nullopt;
}

std::string Refusal(const Setting& setting, Layer layer, std::string_view subject,
                    std::string_view given, const Config& config) {
  return fmt::format("{} must be {}, got {}; using {}", subject, Expected(setting, layer), given,
                     Shown(setting, setting.get(config), layer));
}

}  // namespace ember::config_settings
