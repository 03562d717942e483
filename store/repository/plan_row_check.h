// Judging one stored plan row the way the engine's lookup does, and more: the checksum (Note
// [Row checksums]), strict decoding of the ops, the strategy and every trigger (plan_codec.h),
// ValidatePlan, and that the row's derived columns agree with its contents (plan_key and
// first_op_hash are the keys of its ops, Note [Plan key]; num_ops, ops_bytes and plan_bytes
// match). Used by `ember-plans verify`, `show`, `ls` and by bundle import, so that whatever
// they accept the engine would load. Pure functions; callable from any thread.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "engine/core/status.h"
#include "engine/stream/plan.h"
#include "store/repository/plan_rows.h"
#include "store/repository/sql_session.h"

namespace ember {

// A stored trigger back into an ExecutionTrigger. Corruption for an unknown kind, ops on a kind
// that has none, or ops that do not decode.
Status DecodeTriggerRow(const TriggerRow& row, ExecutionTrigger* out);

// The ops, strategy and triggers of a row assembled into a plan that passed ValidatePlan.
// Checks no checksum. Corruption naming the part that failed.
Status DecodePlanParts(std::span<const uint8_t> ops_blob, std::span<const uint8_t> plan_blob,
                       std::span<const TriggerRow> triggers, ExecutionPlan* out);

// The derived columns of a row against its decoded ops (Note [Plan key]): plan_key is the key of
// the ops, first_op_hash the hash of the first, num_ops their count. Corruption naming the column
// that disagrees.
Status CheckPlanKeys(const Hash128& plan_key, uint64_t first_op_hash, int64_t num_ops,
                     std::span<const OperationIr> ops);

// A loaded row (PlanRepository::LoadPlansByFirstOp, its checksum verified) as the engine adds
// it: the ops decoded and CheckPlanKeys first, so a row whose key is not its ops costs no more
// than decoding them, then the strategy, the triggers and ValidatePlan. Corruption naming what
// failed.
Status DecodeStoredPlan(const StoredPlan& row, ExecutionPlan* out);

// Every check above on `record` (whose blobs and triggers must have been read); *plan (may be
// null) gets the decoded plan. Corruption with the first problem found.
Status CheckPlanRecord(const PlanRecord& record, ExecutionPlan* plan);

// The columns every load of plans reads, from a table or subquery named p, in this order: what
// ReadLoadedPlan reads; a query adds its own columns after them, from kLoadedPlanColumnCount.
inline constexpr char kLoadedPlanColumns[] =
    "p.id, p.plan_key, p.ops_blob, p.plan_blob, p.checksum, p.num_ops, p.origin, p.first_op_hash, "
    "p.explore_ms";
inline constexpr int kLoadedPlanColumnCount = 9;

// A loaded row (kLoadedPlanColumns) checked as every load checks it before returning it (Note
// [Row checksums]): a 16-byte plan_key and the checksum of its blobs. True with *plan filled
// (no triggers yet); false with *bad saying why.
bool ReadLoadedPlan(const SqlRow& row, StoredPlan* plan, BadPlanRow* bad);

// "checksum mismatch (stored 0x…, computed 0x…)" when the blobs' checksum is not `stored`;
// nullopt when it is.
std::optional<std::string> ChecksumMismatch(std::span<const uint8_t> ops_blob,
                                            std::span<const uint8_t> plan_blob, uint64_t stored);

}  // namespace ember
