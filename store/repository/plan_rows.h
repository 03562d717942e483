// The rows PlanRepository reads and writes: plain data, copyable, no behaviour. Plan and
// trigger contents are opaque blobs here (the codec, store/codec/plan_codec.h, gives them meaning).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/hash.h"
#include "engine/runtime/graph_recipe_store.h"

namespace ember {

using Blob = std::vector<uint8_t>;

// Row ids of the plan database (SQLite rowids; stable for the life of the row).
using EnvironmentRowId = int64_t;
using PlanRowId = int64_t;
using WorkloadRowId = int64_t;
using KernelRowId = int64_t;

struct TriggerRow {
  int kind = 0;   // ExecutionTrigger::Kind's stored number (engine/stream/plan.h).
  Blob ops_blob;  // Encoded relative ops; empty for kinds that have none.

  bool operator==(const TriggerRow&) const = default;
};

// A plan to publish. The repository computes the checksum and sizes.
struct NewPlan {
  uint64_t first_op_hash = 0;  // HashOp of the first relative op.
  Hash128 plan_key;            // HashOps of all the relative ops.
  Blob ops_blob;
  Blob plan_blob;
  uint32_t num_ops = 0;
  double explore_ms = 0;
  std::string origin = "local";  // "local", "import:<file>", ...
  // For explaining misses (plans.first_op_kind, plans.found_dims): the first op's kind
  // (OpKind's stored number; nullopt: taken from ops_blob) and the real dim of each relative
  // shape id when the plan was found (empty: unknown).
  std::optional<int> first_op_kind;
  std::vector<int64_t> found_dims;
};

struct EnvironmentRow {
  EnvironmentRowId id = 0;
  std::string stable_id;    // environments.fingerprint ("env-…")
  std::string description;  // its canonical text
};

// A plan as loaded: only rows with status 'ok' whose checksum matched.
struct StoredPlan {
  PlanRowId id = 0;
  uint64_t first_op_hash = 0;
  Hash128 plan_key;
  Blob ops_blob;
  Blob plan_blob;
  uint64_t checksum = 0;
  uint32_t num_ops = 0;
  double explore_ms = 0;
  std::string origin;
  std::vector<TriggerRow> triggers;  // In append order (position 0, 1, ...).
  std::vector<int64_t> found_dims;   // Read by LoadPlansByFirstKind only.
};

struct LoadedPlans {
  std::vector<StoredPlan> plans;  // By id, i.e. in publication order.
  // Rows that failed their checksum on this load: quarantined (when writable), not returned.
  size_t quarantined = 0;
};

// A row a load skipped because its key or checksum failed (PlanRepository::ReportBadRows).
struct BadPlanRow {
  PlanRowId id = 0;
  std::string reason;
};

// What InsertPlan did with a plan (the "existing plan wins" rule: the first publication of a
// plan keeps its row; docs/PLAN_DATABASE.md, "Two processes, one segment").
enum class InsertOutcome {
  kInserted,             // A new row.
  kExisting,             // Another publication of the same ops was first; its id is returned.
  kReplacedQuarantined,  // The existing row was quarantined; it now holds this plan, status ok.
  kKeyCollision,         // Same plan_key, different ops_blob: nothing stored; id is the other's.
};

struct InsertResult {
  PlanRowId plan_id = 0;
  InsertOutcome outcome = InsertOutcome::kInserted;
};

struct KernelKey {
  Blob source_hash;  // Hash of the generated source.
  std::string arch;  // "sm_90", ...
  std::string compiler_version;

  bool operator==(const KernelKey&) const = default;
};

// What a kernel was compiled from (kept beside the binary so it can be read and rebuilt).
struct KernelText {
  std::string name;     // The extern "C" function.
  std::string source;   // CUDA C++.
  std::string options;  // The compile options, as one line.

  bool operator==(const KernelText&) const = default;
};

struct NewKernel {
  KernelKey key;
  Blob binary;
  std::optional<PlanRowId> plan_id;  // The plan it was compiled for, if any (linked to it).
  KernelText text;
  // An existing row with the same key is replaced (its binary was refused by the driver or
  // was for another device) instead of winning.
  bool replace = false;
};

struct StoredKernel {
  KernelRowId id = 0;
  std::optional<PlanRowId> plan_id;  // The plan it was first compiled for.
  KernelKey key;
  Blob binary;
  uint64_t checksum = 0;
  KernelText text;
};

// One plan of a Publish batch, with its triggers and the kernels compiled for it (their plan_id
// is set to the plan's row id).
struct PublishItem {
  NewPlan plan;
  std::vector<TriggerRow> triggers;
  std::vector<NewKernel> kernels;
  // Kernels stored before (for another plan, or outside any plan's run) that this plan's first
  // run used: linked to it when their row exists (a sibling's not yet written is left out).
  std::vector<KernelKey> used_kernels;
};

// New triggers for a plan that is already stored. With `plan_key`, the plan is found again by
// its key inside the write (Note [Plans gc removed], plan_writer.h) and plan_id is not used;
// without, by plan_id. A plan found neither way is reported in PublishResult::plans_gone.
struct TriggerAppend {
  PlanRowId plan_id = 0;
  std::vector<TriggerRow> triggers;
  std::optional<Hash128> plan_key;
};

// Everything one Publish commits in a single transaction.
struct PublishBatch {
  EnvironmentRowId environment_id = 0;
  std::vector<PublishItem> plans;
  std::vector<TriggerAppend> triggers;
  std::vector<NewKernel> kernels;
};

struct PublishResult {
  std::vector<InsertResult> plans;  // One per PublishBatch::plans, same order.
  size_t triggers_added = 0;        // New trigger rows (duplicates are not counted).
  size_t kernels_added = 0;         // New kernel rows (existing ones win and are not counted).
  size_t kernel_links_added = 0;    // PublishItem::used_kernels linked (rows that existed).
  // Indices into PublishBatch::triggers whose plan no longer exists (gc removed it): nothing of
  // them was written. Extra kernels whose plan_id is gone are stored linked to no plan.
  std::vector<size_t> plans_gone;
};

struct WorkloadRow {
  WorkloadRowId id = 0;
  EnvironmentRowId environment_id = 0;
  std::string name;
  int64_t explorations = 0;
  std::optional<int64_t> max_explorations;  // nullopt: unlimited.
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t unfused_runs = 0;
  int64_t last_seen = 0;  // Unix milliseconds.
};

// One pattern of misses of a workload (table workload_misses; Note [Explaining a miss] in
// engine/stream/miss_explanation.h): written as counts to add, read back with the totals.
struct WorkloadMiss {
  uint64_t pattern = 0;
  std::string cause;  // MissCauseName
  int64_t op_position = 0;
  std::string op_name;
  std::string nearest_plan;  // "#2", "stored plan 17", "" when there was none
  std::string detail;        // the latest explanation (MissExplanation::Summary)
  int64_t count = 0;
  // The distinct values that differed, at most kMaxMissValues: a shape miss's real dim, a
  // Cat's number of inputs (MissExplanation::value_here). Many values in few misses: a dim
  // that changes every step.
  std::vector<int64_t> values;
  // The first explanation of this pattern (written: the batch's first; empty means `detail`).
  std::string first_detail;
  // Read only:
  WorkloadRowId workload_id = 0;
  int64_t first_seen = 0;  // Unix ms
  int64_t last_seen = 0;

  static constexpr size_t kMaxMissValues = 32;
};

struct WorkloadCounters {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t unfused_runs = 0;
};

// What a backend measured about its device (table device_facts, schema 5; Note [Device facts],
// store/persistent_facts.h): short text it writes and parses itself, one value per name and
// environment.
struct DeviceFact {
  std::string name;
  std::string value;

  bool operator==(const DeviceFact&) const = default;
};

// An environment's facts as loaded: only rows whose checksum matched, by name.
struct LoadedDeviceFacts {
  std::vector<DeviceFact> facts;
  size_t damaged = 0;  // rows skipped because their checksum did not match
};

// A launch window's recipe as the writer stores it (table graph_recipes, schema 6; Note [Graph
// recipes], store/persistent_recipes.h): scoped to the workload that ran it as well as to the
// environment.
struct GraphRecipeRow {
  std::string workload;
  GraphRecipe recipe;
};

// A workload's recipes as loaded: only rows whose checksum matched and whose body is a tape
// whose kernels are its list (PlanRepository::CheckGraphRecipe), by key.
struct LoadedGraphRecipes {
  std::vector<GraphRecipe> recipes;
  size_t damaged = 0;  // rows skipped: checksum mismatch, or a kernel list that does not parse
  size_t refused = 0;  // rows skipped: the checksum matched, CheckGraphRecipe did not
};

// Whole rows as the tools and the engine's row check (plan_row_check.h) read them.
struct EnvironmentRecord {
  EnvironmentRowId id = 0;
  std::string fingerprint;  // "env-…" (Note [Environment fingerprint])
  std::string description;  // the canonical JSON text
  int64_t created = 0;
  int64_t plans = 0;  // plans stored for it
};

// One row of `plans`, every column, with its triggers.
struct PlanRecord {
  PlanRowId id = 0;
  EnvironmentRowId environment_id = 0;
  std::string environment;    // the environment's stable id
  int64_t first_op_hash = 0;  // as stored (column_encoding.h: FromColumn for the hash)
  Blob plan_key;              // 16 bytes when sound
  Blob ops_blob;
  Blob plan_blob;
  int64_t checksum = 0;  // as stored
  int64_t ops_bytes = 0;
  int64_t plan_bytes = 0;
  int64_t num_ops = 0;
  double explore_ms = 0;
  int64_t created = 0;              // Unix ms
  std::optional<int64_t> last_hit;  // Unix ms; nullopt: never hit
  int64_t hits = 0;
  std::string origin;
  std::string status;                // "ok" or "quarantined"
  std::string quarantine_reason;     // empty when none
  std::vector<TriggerRow> triggers;  // position order
};

// One row of device_facts (schema 5 on), for the tools: whether its checksum matches is part
// of it, since they list damaged rows too.
struct DeviceFactRecord {
  EnvironmentRowId environment_id = 0;
  std::string environment;  // the environment's stable id
  std::string name;
  std::string value;
  int64_t updated = 0;  // Unix ms
  bool checksum_ok = false;
};

// One row of graph_recipes (schema 6 on), for the tools, damaged rows included: checksum_ok
// says whether the kernel list parsed and the checksum matched; `recipe.kernels` is empty when
// the list did not parse.
struct GraphRecipeRecord {
  EnvironmentRowId environment_id = 0;
  std::string environment;  // the environment's stable id
  std::string workload;
  GraphRecipe recipe;
  int64_t updated = 0;  // Unix ms
  bool checksum_ok = false;
};

struct WorkloadRecord {
  WorkloadRow row;
  std::string environment;  // the environment's stable id
  int64_t plans_used = 0;   // plan_usage rows
};

}  // namespace ember
