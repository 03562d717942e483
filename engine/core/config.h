// Config: ember's settings, read once per process from defaults, then `ember.toml`, then the
// environment (docs/CONFIGURATION.md lists every key). burn reads the same knobs
// from burn.toml and BURN_FUSION_* (burn-std config/base.rs, config/fusion.rs).
//
// Two ways in:
//   * LoadConfig(env, default_file): a pure function of an environment lookup and the files it
//     names. It never prints and never reads the real environment, so tests drive every layer.
//   * GlobalConfig(): the process's configuration, loaded on first use from the real
//     environment; its warnings go to stderr exactly once.
//
// Note [Config errors]: a bad setting never stops the program. A malformed file, a wrong TOML
// type, an unknown level or a number out of range becomes one warning line, naming where the
// value came from, what was expected, what was given and what is used instead:
//   ember: config: ember.toml:3: [fusion.search] max_blocks must be a positive integer, ...
//   ember: config: EMBER_MAX_BLOCKS must be a positive integer, got "abc"; using 5
// The value of the layer below (the default, or the file's value for an environment variable)
// stays in force. Unknown keys are reported too (typos), then ignored. A file with a syntax
// error is ignored as a whole, since toml++ gives nothing back from it. Both layers read one
// table of settings (config.cpp: key, variable, parser, range, field), so a key and its
// variable are bounded alike and their warnings are worded alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ember {

// How much the fusion search logs (burn's FusionLogLevel). Ordered: a message at level L is
// written when the configured level is >= L.
enum class LogLevel { kDisabled, kBasic, kMedium, kFull };

// "disabled", "basic", "medium" or "full".
std::string_view LogLevelName(LogLevel level);

// burn's spellings, case-insensitive: disabled|off|0, basic, medium, full|1. Anything else is
// nullopt; the caller decides what to keep.
std::optional<LogLevel> ParseLogLevel(std::string_view text);

// The accuracy of the CPU backend's transcendental functions ([cpu] math, Note [CPU math
// accuracy], engine/runtime/cpu/vector_math.h): SLEEF's 1-ULP functions, or its 3.5-ULP ones
// where SLEEF has them (log, sin, cos, tanh).
enum class CpuMath { kU10, kU35 };

// "u10" or "u35".
std::string_view CpuMathName(CpuMath math);

// "u10" or "u35", case-insensitive; anything else is nullopt.
std::optional<CpuMath> ParseCpuMath(std::string_view text);

// The bounds of [store] shm_bytes, a shared plan segment's (store/shm/shared_segment_layout.h): the
// smallest segment that holds the fixed part of its layout and a few plans, and the largest one
// ember creates or maps. 4 GiB holds hundreds of thousands of plans of 2 to 10 KB; more is a
// typo, and an object that large in /dev/shm may not even be mappable.
inline constexpr uint64_t kMinShmBytes = 256 * 1024;
inline constexpr uint64_t kMaxShmBytes = uint64_t{4} << 30;

// Plain settings; the defaults below are the documented defaults.
struct Config {
  // [fusion] enabled / EMBER_FUSION. Off: every op runs unfused, no search, no plans.
  bool fusion_enabled = true;
  // [fusion.search] max_blocks / EMBER_MAX_BLOCKS. Always >= 1.
  size_t max_blocks = 5;
  // [fusion.search] max_explorations / EMBER_MAX_EXPLORATIONS, per stream. nullopt: unlimited;
  // 0: never explore.
  std::optional<size_t> max_explorations;
  // [fusion.search] search_sync_tail / EMBER_SEARCH_SYNC_TAIL. Off (burn's rule): at a sync, the
  // positions a search leaves uncovered run unfused as the plan's last leaf. On: they are
  // searched again first (Note [Sync tail], engine/stream/explorer.cpp). Part of the
  // environment fingerprint.
  bool search_sync_tail = false;
  // [fusion.log] level / EMBER_LOG.
  LogLevel log_level = LogLevel::kDisabled;
  // [fusion.log] file. Empty: stderr. Opened in append mode.
  std::string log_file;
  // [store] path (or plan_db) / EMBER_PLAN_DB: the plan database, "off", or empty when none is
  // set (the default, ./.ember/plans.db). An empty string in the file is reported, not taken.
  std::string plan_db;
  // [store] workload / EMBER_WORKLOAD: the name exploration budgets are counted under. Empty:
  // the executable's name.
  std::string workload;
  // [store] allow_shared_writable / EMBER_ALLOW_SHARED_WRITABLE: use a plan database (and its
  // directory) that other users can write (Note [Plan database trust]).
  bool allow_shared_writable = false;
  // [store] shm / EMBER_SHM: whether the shared-memory tier may be used.
  bool shm = true;
  // [store] shm_bytes / EMBER_SHM_BYTES: the size of a shared plan segment (pages are taken
  // only as plans arrive). From kMinShmBytes to kMaxShmBytes.
  uint64_t shm_bytes = uint64_t{64} << 20;
  // [store] shm_wait_ms / EMBER_SHM_WAIT_MS: how long a worker waits for a sibling that is
  // exploring the same segment before exploring it too. 0: never wait.
  uint32_t shm_wait_ms = 1000;
  // [runtime] launch_records / EMBER_LAUNCH_RECORDS: launch records a GPU backend keeps
  // (engine/runtime/cuda/backend/launch_records.h); 0 turns them off.
  size_t launch_records = 4096;
  // [runtime] graphs / EMBER_GRAPHS: whether a GPU backend replays repeated launch windows as
  // CUDA graphs (Note [Launch windows], engine/runtime/cuda/backend/launch_graphs.h).
  bool graphs = true;
  // [runtime] graph_after / EMBER_GRAPH_AFTER: how many times a window runs eagerly before it is
  // captured (1 to 1000); a window with a stored recipe is captured after its first run.
  uint32_t graph_after = 2;
  // [runtime] graph_cache / EMBER_GRAPH_CACHE: graphs kept per backend, least recently used out
  // (1 to 4096).
  size_t graph_cache = 64;
  // [cpu] math / EMBER_CPU_MATH: the accuracy of the CPU's exp, log, sin, ... (CpuMath above).
  // Part of a CPU environment's fingerprint when it is not u10.
  CpuMath cpu_math = CpuMath::kU10;
};

// The plan database a configuration names: config.plan_db, or the default ./.ember/plans.db
// when it is empty ("off" is returned as it is).
inline constexpr const char* kDefaultPlanDbPath = ".ember/plans.db";
inline std::string PlanDbPath(const Config& config) {
  return config.plan_db.empty() ? std::string(kDefaultPlanDbPath) : config.plan_db;
}

// Looks up one environment variable; nullopt when it is not set. Implementations must be safe
// to call from the thread that calls LoadConfig.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

// The real process environment (std::getenv).
std::optional<std::string> ProcessEnv(std::string_view name);

struct LoadedConfig {
  Config config;
  // The file that was read, or empty when none was. Relative paths stay relative.
  std::string file;
  // One line per problem, in the order found, each starting "ember: config: " (Note
  // [Config errors]). Not yet printed.
  std::vector<std::string> warnings;
};

// Builds a Config from the layers defaults → file → environment. The file is $EMBER_CONFIG when
// that is set, else `default_file` when it exists (GlobalConfig passes "ember.toml", i.e. the
// working directory). An environment variable set to the empty string counts as unset.
// Thread-safe if `env` is.
LoadedConfig LoadConfig(const EnvLookup& env,
                        const std::filesystem::path& default_file = "ember.toml");

// One setting as LoadConfig's table holds it (config.cpp): its key in the file, its environment
// variable, and for a number the range both layers enforce. For tests and documentation checks.
struct ConfigSetting {
  std::string_view table;     // "fusion.search"
  std::string_view key;       // "max_blocks"
  std::string_view variable;  // "EMBER_MAX_BLOCKS"; empty when only the file sets it
  bool integer = false;       // an integer (or "unlimited") from `min` to `max`
  uint64_t min = 0;
  uint64_t max = 0;
};

// Every setting, in the file's order.
std::vector<ConfigSetting> ConfigSettings();

// The process's configuration: LoadConfig(ProcessEnv) on the first call (thread-safe, once),
// which also prints its warnings to stderr. The reference stays valid for the whole process.
const Config& GlobalConfig();

// Replaces the process's configuration and makes the fusion log re-read its level and sink.
// REQUIRES: tests only; no other thread is using GlobalConfig() or logging meanwhile.
void SetGlobalConfigForTesting(Config config);

}  // namespace ember
