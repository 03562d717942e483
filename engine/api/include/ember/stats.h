// ember::Stats: what the engine did on a device since the process started. Part of the public
// API; used by tests, benchmarks and ember-lab. Later versions add fields; these names stay.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <ember/device.h>

namespace ember {

// Segments that found no stored plan to run (they explored, or ran unfused once the
// exploration budget was spent), by why the nearest stored plan did not fit them
// (docs/PLAN_DATABASE.md, "Why a segment missed"; EMBER_LOG=medium prints each one).
struct MissCauses {
  uint64_t no_candidate = 0;  // nothing stored starts with the segment's first op kind
  uint64_t op_kind = 0;       // another op at some position (e.g. a scalar became a tensor)
  uint64_t dtype = 0;         // an op's or operand's dtype
  uint64_t status = 0;        // an operand's ReadOnly/ReadWrite (a value kept alive or not)
  uint64_t shape = 0;         // an operand's relative shape (64×32 vs 64×64)
  uint64_t data_flow = 0;     // an operand is another tensor
  uint64_t attribute = 0;     // an axis, an arity, a distribution
  uint64_t op_count = 0;      // the segment is shorter than the plan (or longer, at a sync)
  uint64_t trigger = 0;       // the plan matched, but what followed matched none of its triggers
  uint64_t environment = 0;   // a plan is stored for it under another max_blocks, fuser set, device

  uint64_t total() const {
    return no_candidate + op_kind + dtype + status + shape + data_flow + attribute + op_count +
           trigger + environment;
  }
};

// Every field of MissCauses, in order, as X(field): the lists of them (the Python module's
// dict, ember-lab's JSON) expand this, so a new field cannot be left out of one. The asserts at
// the end of this header fail until a new field is in its struct's list.
// (clang-format left out: it reflows such a list differently on every run)
// clang-format off
#define EMBER_MISS_CAUSES_FIELDS(X)                                                \
  X(no_candidate) X(op_kind) X(dtype) X(status) X(shape) X(data_flow) X(attribute) \
  X(op_count) X(trigger) X(environment)
// clang-format on

// How the device's engine started: wall milliseconds, zero where there was nothing to do
// (docs/ARCHITECTURE.md, "The start"). The parts run side by side, so they do not add up:
// the backend is made on a thread of its own while the plan database opens, and on a GPU
// cuBLASLt loads on a third (engine/runtime/cuda/backend/blas_warm_up.h).
struct StartBreakdown {
  double engine_ms = 0;         // the first call that needed the device -> its engine is up
  double context_ms = 0;        // the backend made: on a GPU, the driver and the device's context
  double plan_db_open_ms = 0;   // the plan database opened (on a GPU, its environment reads
                                // NVRTC's version); 0 when it is off
  double libraries_ms = 0;      // cuBLASLt loaded, its handle made and its relu probed (GPU)
  double kernel_load_ms = 0;    // stored kernels looked up and loaded on the device
  double kernel_source_ms = 0;  // fused kernels' source generated, for their keys (GPU)
  double first_op_ms = 0;       // engine start -> the first op or fused trace was queued
};

// Every field of StartBreakdown, in order (as EMBER_MISS_CAUSES_FIELDS).
// (clang-format left out: it reflows such a list differently on every run)
// clang-format off
#define EMBER_START_BREAKDOWN_FIELDS(X)                                           \
  X(engine_ms) X(context_ms) X(plan_db_open_ms) X(libraries_ms) X(kernel_load_ms) \
  X(kernel_source_ms) X(first_op_ms)
// clang-format on

// CUDA graphs of repeated launch windows (docs/ARCHITECTURE.md, "Launch windows"): a window is
// a run of generated-kernel launches on one stream between two points where the stream gets
// other work or the host waits; one that repeated is captured as a graph and replayed with one
// graph launch. Zero on the CPU and with `[runtime] graphs = off`.
struct GraphStats {
  uint64_t captures = 0;           // windows captured as graphs
  uint64_t capture_failures = 0;   // captures the driver refused (those windows stay eager)
  uint64_t replays = 0;            // windows that ran as one graph launch
  uint64_t replayed_launches = 0;  // the kernel launches those replays stood for
  uint64_t node_updates = 0;       // graph nodes given new arguments (addresses, scalars)
  // Fallbacks, by cause: a window held for a graph that then differed from it, or ended before
  // it, or whose graph launch the driver refused, ran its launches eagerly instead.
  uint64_t fallback_diverged = 0;
  uint64_t fallback_ended_early = 0;
  uint64_t fallback_replay_failed = 0;
  uint64_t evictions = 0;       // graphs dropped for `[runtime] graph_cache`
  uint64_t recipes_loaded = 0;  // stored tapes read from the plan database at the start
  uint64_t recipes_stored = 0;  // tapes this process gave it
  // Windows (eager or held) that ended, and what ended each: a cuBLASLt matmul, other work on
  // the stream (a copy, an upload), the host waiting for it (a sync, a read), a switch to
  // another stream, the most launches of one window (64), or a held window completing its
  // graph. Launches per window is what a graph can stand for: `launches / windows`.
  uint64_t windows = 0;
  uint64_t ends_matmul = 0;
  uint64_t ends_other_work = 0;
  uint64_t ends_host_wait = 0;
  uint64_t ends_stream_switch = 0;
  uint64_t ends_full = 0;
  uint64_t ends_complete = 0;
};

// Every field of GraphStats, in order (as EMBER_MISS_CAUSES_FIELDS).
// (clang-format left out: it reflows such a list differently on every run)
// clang-format off
#define EMBER_GRAPH_STATS_FIELDS(X)                                                   \
  X(captures) X(capture_failures) X(replays) X(replayed_launches) X(node_updates)     \
  X(fallback_diverged) X(fallback_ended_early) X(fallback_replay_failed) X(evictions) \
  X(recipes_loaded) X(recipes_stored) X(windows) X(ends_matmul) X(ends_other_work)    \
  X(ends_host_wait) X(ends_stream_switch) X(ends_full) X(ends_complete)
// clang-format on

struct Stats {
  uint64_t explorations = 0;        // optimizations built by the fusion search
  uint64_t cache_hits = 0;          // stored plans executed without exploring
  MissCauses misses;                // segments that ran no stored plan, by cause
  uint64_t plans = 0;               // plans in the device's in-memory store
  uint64_t fused_executions = 0;    // fused optimizations executed
  uint64_t unfused_operations = 0;  // ops executed one by one (Init and Drop included)
  uint64_t launches = 0;            // kernels run: one per fused execution, one per unfused
                                    // op other than Init and Drop
  // The plan database, a SQLite file or a PostgreSQL server (zero when it is off):
  uint64_t plans_loaded_from_db = 0;  // stored plans that joined the in-memory store
  // Of those, the plans other hosts published while this process ran, read because the
  // server announced them (PostgreSQL's LISTEN/NOTIFY; always 0 on SQLite).
  uint64_t plans_loaded_on_notify = 0;
  uint64_t plans_published = 0;   // new plans this process wrote to it
  uint64_t rows_quarantined = 0;  // stored plans refused as damaged or invalid
  double plan_load_ms = 0;        // time in its lookups: read, decode, validate, add
  // The shared-memory tier between worker processes (zero when it or the database is off):
  uint64_t plans_loaded_from_shm = 0;  // plans that joined the in-memory store from the segment
  uint64_t shm_publish_skipped = 0;    // plans not put in the segment (full or unusable)
  // Cache hits by the tier the executed plan came from; the rest of cache_hits ran plans this
  // process found itself (the memory tier).
  uint64_t cache_hits_from_shm = 0;
  uint64_t cache_hits_from_db = 0;
  // Generated kernels (zero on the CPU, which interprets fused traces): compiled by this
  // process, and the wall time spent compiling them. A steady state compiles nothing.
  uint64_t kernels_compiled = 0;
  double compile_ms = 0;
  // Kernels loaded instead of compiled, by where the binary came from (a warm GPU start loads
  // every kernel and compiles none), and stored binaries that were refused (damaged, built for
  // another GPU, refused by the driver) and compiled again, replacing the stored copy.
  uint64_t kernels_loaded_from_db = 0;
  uint64_t kernels_loaded_from_shm = 0;
  uint64_t kernels_rebuilt = 0;
  // Row kernels compiled again under a register cap that lets more blocks share a
  // multiprocessor, and used (Note [Register cap], codegen/register_cap.h). Zero on the CPU.
  uint64_t kernels_register_capped = 0;
  // GPU launch records (docs/CONFIGURATION.md, `[runtime] launch_records`): launches of a
  // generated kernel that replayed a kept record, launches that planned and recorded, and
  // records dropped for the capacity. A steady state hits on every launch. Zero on the CPU.
  uint64_t launch_record_hits = 0;
  uint64_t launch_record_misses = 0;
  uint64_t launch_record_evictions = 0;
  // Launch windows replayed as CUDA graphs (docs/CONFIGURATION.md, `[runtime] graphs`).
  GraphStats graphs;
  StartBreakdown start;
};

// Every number of Stats, in order, without the nested misses, graphs and start (as
// EMBER_MISS_CAUSES_FIELDS).
// (clang-format left out: it reflows such a list differently on every run)
// clang-format off
#define EMBER_STATS_NUMBERS(X)                                                        \
  X(explorations) X(cache_hits) X(plans) X(fused_executions) X(unfused_operations)    \
  X(launches) X(plans_loaded_from_db) X(plans_loaded_on_notify) X(plans_published)    \
  X(rows_quarantined) X(plan_load_ms) X(plans_loaded_from_shm) X(shm_publish_skipped) \
  X(cache_hits_from_shm) X(cache_hits_from_db) X(kernels_compiled) X(compile_ms)      \
  X(kernels_loaded_from_db) X(kernels_loaded_from_shm) X(kernels_rebuilt)             \
  X(kernels_register_capped)                                                          \
  X(launch_record_hits) X(launch_record_misses) X(launch_record_evictions)
// clang-format on

// The lists above name every field: each field is 8 bytes (uint64_t or double) and the nested
// structs hold only such fields, so the sizes add up exactly when none is missing.
#define EMBER_STATS_SIZE_OF_MISS(f) +sizeof(MissCauses::f)
#define EMBER_STATS_SIZE_OF_START(f) +sizeof(StartBreakdown::f)
#define EMBER_STATS_SIZE_OF_GRAPH(f) +sizeof(GraphStats::f)
#define EMBER_STATS_SIZE_OF_NUMBER(f) +sizeof(Stats::f)
static_assert(0 EMBER_MISS_CAUSES_FIELDS(EMBER_STATS_SIZE_OF_MISS) == sizeof(MissCauses),
              "a MissCauses field is missing from EMBER_MISS_CAUSES_FIELDS");
static_assert(0 EMBER_START_BREAKDOWN_FIELDS(EMBER_STATS_SIZE_OF_START) == sizeof(StartBreakdown),
              "a StartBreakdown field is missing from EMBER_START_BREAKDOWN_FIELDS");
static_assert(0 EMBER_GRAPH_STATS_FIELDS(EMBER_STATS_SIZE_OF_GRAPH) == sizeof(GraphStats),
              "a GraphStats field is missing from EMBER_GRAPH_STATS_FIELDS");
static_assert(0 EMBER_STATS_NUMBERS(EMBER_STATS_SIZE_OF_NUMBER) + sizeof(MissCauses) +
                      sizeof(GraphStats) + sizeof(StartBreakdown) ==
                  sizeof(Stats),
              "a Stats field is missing from EMBER_STATS_NUMBERS");
#undef EMBER_STATS_SIZE_OF_MISS
#undef EMBER_STATS_SIZE_OF_START
#undef EMBER_STATS_SIZE_OF_GRAPH
#undef EMBER_STATS_SIZE_OF_NUMBER

// Counters of `device` (all threads). A device that was never used reports zeros; a released
// device starts again from zero.
Stats GetStats(Device device = Device::Cpu());

// The device's most recent misses, explained (all threads, oldest first, at most 16): the
// lines EMBER_LOG=medium prints, such as "[plan] miss (shape): nearest plan #2 differs at op 0
// (NumericFloat::Mul): input 0 shape [1,2] vs [1,1] (64×32 gives [1,2], ...)", kept whatever
// the log level (docs/PLAN_DATABASE.md, "Why a segment missed").
std::vector<std::string> RecentMisses(Device device = Device::Cpu());

}  // namespace ember
