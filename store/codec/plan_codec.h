// The plan codec: ExecutionPlan <-> canonical Cap'n Proto bytes (schema/plan.capnp), and the
// keys the plan database files plans under (docs/PLAN_DATABASE.md). The to_state/from_state
// half of the store: fused leaves travel as their OptimizationState (Optimization::ToState) and
// come back through OptimizationFromState (engine/fuse/optimization_factory.h).
//
// Encoding is canonical (Note [Canonical messages], store/codec/canonical_message.h): equal plans
// give equal bytes, and decode then encode gives back the same bytes. Decoding never trusts its
// input: it returns Status::Corruption for bytes that are not a canonical message, numbers
// outside the C++ enums, and plans that break an invariant of the in-memory store
// (ValidatePlan). Nothing in here throws or aborts on bad bytes.
//
// Pure functions; callable from any thread (the store's background writer encodes, the
// lookup path decodes).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/core/status.h"
#include "engine/ir/hash.h"
#include "engine/ir/operation_ir.h"
#include "engine/stream/plan.h"

namespace ember {

// The newest version in schema/README.md's log (tested against schema/plan.capnp). Blobs do
// not record it and readers never branch on it: fields are only ever appended. It is for the
// environment fingerprint and for tools that show where a database came from.
inline constexpr uint32_t kPlanSchemaVersion = 2;

// Deepest Composed nesting a decoded strategy may have (explorations build two or three).
inline constexpr int kMaxStrategyDepth = 24;

// REQUIRES: every fused leaf has an optimization; positions fit in 32 bits.
std::vector<uint8_t> EncodePlan(const ExecutionPlan& plan);
// On success *out is a plan that passed ValidatePlan; fused leaves are fresh optimizations.
Status DecodePlan(std::span<const uint8_t> bytes, ExecutionPlan* out);

// The parts of a plan on their own, for a store that keeps them in separate columns and rows
// (the ops blob, the strategy blob, one ops blob per trigger). A plan assembled from decoded
// parts must still pass ValidatePlan, which checks how the parts fit together.
//
// A strategy and its ordering (schema BlockOptimization). Decoding checks what needs no ops:
// the ordering is a permutation of 0..size-1 that the leaves cover, fused leaves fit their
// optimization, nesting depth.
std::vector<uint8_t> EncodeBlockOptimization(const BlockOptimization& block);
Status DecodeBlockOptimization(std::span<const uint8_t> bytes, BlockOptimization* out);

// An op list (schema OperationList): the plans table's ops blob, a trigger's ops.
std::vector<uint8_t> EncodeOperations(std::span<const OperationIr> ops);
// Checks each op's numbers and layout (CheckOperationLayout), not the relative form.
Status DecodeOperations(std::span<const uint8_t> bytes, std::vector<OperationIr>* out);

// Note [Plan key]
// plan_key = XXH3-128 of the canonical bytes of the relative op list (HashOps,
// engine/ir/canonical.h), first_op_hash = XXH3-64 of the first op's (HashOp, the in-memory
// plan index's key). They hash the engine's own canonical op bytes, not the Cap'n Proto blob,
// so that a key never depends on how the schema lays out a message, and a process finds in
// SQLite exactly what its in-memory index would file the plan under. Keys only narrow a
// lookup: equality of the decoded ops decides.
Hash128 PlanKey(std::span<const OperationIr> ops);
// REQUIRES: !ops.empty().
uint64_t FirstOpHash(std::span<const OperationIr> ops);

// The invariants a plan must hold before it may enter an ExecutionPlanStore, checked without
// aborting (DecodePlan runs it; the store may run it on plans from elsewhere):
//   * at least one op; every op has its kind's layout;
//   * the ops, then each trigger's ops continuing the same frame, are in relative form: tensor
//     ids, shape ids, scalar and range placeholders are handed out 0, 1, 2... (shape ids from
//     1; 0 is dim value 1) in order of first appearance (Note [Relative form]);
//   * triggers are deduplicated; OnOperations carries ops, the other kinds none;
//   * the block ordering is a permutation of 0..n-1 for the plan's n ops, equal to the leaves'
//     orderings concatenated (covered prefix, engine/search/strategy.h);
//   * when running the ops in their own order keeps every tensor alive while it is read (as on
//     every live queue), so does running them in the block ordering: no op before the op
//     producing its input, none after its input's last use (IsValidExecutionOrder,
//     engine/search/graph/lifetime.h, which order repair requires of every plan it makes);
//   * a fused leaf covers as many positions as its optimization's len() (OrderedExecution
//     counts len() ops as executed), at least one;
//   * no fused leaf refers to a relative shape id the plan's ops did not hand out;
//   * Composed nests at most kMaxStrategyDepth deep;
//   * every fused leaf is what a fresh fuser of its kind makes of the ops at its positions,
//     byte for byte (Note [Optimization proof], store/codec/plan_proof.h).
Status ValidatePlan(const ExecutionPlan& plan);

}  // namespace ember
