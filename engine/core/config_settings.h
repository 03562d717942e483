// The settings of ember.toml and the EMBER_* environment (engine/core/config.h): one table of
// rows that both layers read, and how a row's value is parsed from either layer and shown in a
// warning. Internal to engine/core/config.cpp, which reads the layers (Note [Config errors]).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "engine/core/config.h"

namespace ember::config_settings {

// How a setting's value is written, and so parsed.
enum class Kind {
  kSwitch,              // file: true or false; environment: on|off|1|0|true|false
  kInteger,             // an integer from the setting's min to its max
  kIntegerOrUnlimited,  // the same, or "unlimited" in any case
  kLevel,               // a level (ParseLogLevel)
  kCpuMath,             // u10 or u35 (ParseCpuMath)
  kString,              // any string
  kName,                // a name stored and shown everywhere: UTF-8 without controls, bounded
  kPath,                // a non-empty string: a path or "off"
};

// A setting's value in the one shape every kind fits.
struct Value {
  bool on = false;                       // kSwitch
  std::optional<uint64_t> number;        // kInteger, kIntegerOrUnlimited; nullopt: unlimited
  LogLevel level = LogLevel::kDisabled;  // kLevel
  CpuMath math = CpuMath::kU10;          // kCpuMath
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

// Every setting, in the file's order, which is the order of the warnings too. The environment
// reads the rows that name a variable, in the same order.
std::span<const Setting> Settings();
// The tables of the file, each after its parent.
std::span<const std::string_view> Tables();
// "fusion" for "fusion.search", "" for "fusion".
std::string_view ParentTable(std::string_view table);
// "search" for "fusion.search".
std::string_view TableName(std::string_view table);

// Where a warning says a value came from; the two layers spell switches and levels differently.
enum class Layer { kFile, kEnvironment };

// ASCII lower case.
std::string Lower(std::string_view text);
// Double-quoted, with a quote, a backslash and anything a terminal would act on escaped
// (Printable), so a warning shows exactly what was given and nothing else.
std::string Quote(std::string_view text);

// The value an environment variable gives `setting`, or nullopt when the text does not parse
// or is out of range. Also the file's reading of kinds written as TOML strings.
std::optional<Value> FromText(const Setting& setting, std::string_view text);
// The value a TOML node gives `setting`, or nullopt when it is of the wrong type or range.
std::optional<Value> FromToml(const Setting& setting, const toml::node& node);
// The warning for a value of `setting` that `layer` gave and that was refused (Note [Config
// errors]): "<subject> must be <expected>, got <given>; using <the value that stays>".
std::string Refusal(const Setting& setting, Layer layer, std::string_view subject,
                    std::string_view given, const Config& config);

}  // namespace ember::config_settings
