// Forging stored plans the way issue 13's hostile user did (part 3): one field of a fused
// leaf's trace changed, the blob encoded again (canonical, so it differs from the original in
// that field's bytes only), and — by the caller — the row checksum recomputed (PlanChecksum,
// store/codec/row_checksum.h), which is no secret. Note [Optimization proof] (store/codec/plan_proof.h)
// says why every such plan must be refused.
//
// Header-only: shared by tests/store, tests/tools/plans and tests/end_to_end (the engine's
// forgeable program is ForgeableProgram, tests/common/workloads.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/fuse/trace_optimization.h"
#include "engine/trace/fuse_trace.h"
#include "store/codec/plan_codec.h"
#include "store/codec/row_checksum.h"
#include "tests/store/sqlite_test_util.h"

namespace ember::forge {

// An edit of a trace; returns false when the trace has nothing to edit.
using TraceEdit = std::function<bool(FuseTrace&)>;

// issue 13's cases. A Mean reduce becomes an ArgMax.
inline bool MeanToArgMax(FuseTrace& trace) {
  for (ReduceStage& stage : trace.reduces) {
    if (stage.kind != ReduceStage::Kind::kMean) continue;
    stage.kind = ReduceStage::Kind::kArgMax;
    return true;
  }
  return false;
}

// The first scalar reads the placeholder of another one (the kernel then uses the other
// scalar's value).
inline bool RedirectScalar(FuseTrace& trace) {
  std::vector<FuseScalar>& scalars = trace.resources.scalars;
  for (size_t i = 1; i < scalars.size(); ++i) {
    if (scalars[i].placeholder == scalars[0].placeholder) continue;
    scalars[0].placeholder = scalars[i].placeholder;
    return true;
  }
  return false;
}

// An output is marked as used up inside the kernel, so its result is never handed back.
// `ember-plans show` does not display output statuses (FormatFuseTrace prints an output's
// tensor and shape only), so the forged trace lists exactly like the genuine one. Not a
// one-byte edit when the output's status and dtype word was all zeros (NotInit, f32), which
// canonical encoding leaves out: the forgery then adds that word.
inline bool HideAnOutput(FuseTrace& trace) {
  for (TensorIr& output : trace.resources.outputs) {
    if (output.status == TensorStatus::kReadWrite) continue;
    output.status = TensorStatus::kReadWrite;
    return true;
  }
  return false;
}

// The first fused leaf of `strategy` (depth first) whose trace `edit` changes, edited.
inline bool EditStrategy(ExecutionStrategy& strategy, const TraceEdit& edit) {
  if (strategy.kind == ExecutionStrategy::Kind::kComposed) {
    for (ExecutionStrategy& child : strategy.children) {
      if (EditStrategy(child, edit)) return true;
    }
    return false;
  }
  if (strategy.kind != ExecutionStrategy::Kind::kOptimization) return false;
  auto genuine = std::dynamic_pointer_cast<TraceOptimization>(strategy.optimization);
  if (genuine == nullptr) return false;
  FuseTrace trace = genuine->trace();
  if (!edit(trace)) return false;
  strategy.optimization = std::make_shared<TraceOptimization>(
      std::string(genuine->name()), std::move(trace), genuine->len(), genuine->score());
  return true;
}

// A plans-table plan_blob (a BlockOptimization) with the first trace `edit` changes edited;
// nullopt when the blob does not decode or no trace has anything to edit.
inline std::optional<std::vector<uint8_t>> ForgePlanBlob(std::span<const uint8_t> plan_blob,
                                                         const TraceEdit& edit) {
  BlockOptimization block;
  if (!DecodeBlockOptimization(plan_blob, &block).ok()) return std::nullopt;
  if (!EditStrategy(block.strategy, edit)) return std::nullopt;
  return EncodeBlockOptimization(block);
}

// The same for a whole encoded plan (a shared-tier entry's payload); `plan` is the genuine one.
inline std::optional<std::vector<uint8_t>> ForgeEncodedPlan(ExecutionPlan plan,
                                                            const TraceEdit& edit) {
  if (!EditStrategy(plan.optimization.strategy, edit)) return std::nullopt;
  return EncodePlan(plan);
}

// How many bytes differ between two blobs of the same size (SIZE_MAX when the sizes differ).
inline size_t BytesChanged(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  if (a.size() != b.size()) return SIZE_MAX;
  size_t changed = 0;
  for (size_t i = 0; i < a.size(); ++i) changed += a[i] != b[i] ? 1 : 0;
  return changed;
}

// Forges the first 'ok' plan row of the database behind `raw` whose trace `edit` changes, with
// its checksum recomputed. Returns the row id; 0 when no row has anything to edit.
inline int64_t ForgeRow(sqlite_test::RawDb& raw, const TraceEdit& edit) {
  for (const std::string& id : raw.Column("SELECT id FROM plans WHERE status = 'ok' ORDER BY id")) {
    const std::vector<uint8_t> ops = raw.Blob("SELECT ops_blob FROM plans WHERE id = " + id);
    const std::vector<uint8_t> blob = raw.Blob("SELECT plan_blob FROM plans WHERE id = " + id);
    const std::optional<std::vector<uint8_t>> forged = ForgePlanBlob(blob, edit);
    if (!forged.has_value()) continue;
    raw.SetBlob("UPDATE plans SET plan_blob = ?1 WHERE id = " + id, *forged);
    raw.Exec("UPDATE plans SET checksum = " +
             std::to_string(static_cast<int64_t>(PlanChecksum(ops, *forged))) +
             " WHERE id = " + id);
    return std::stoll(id);
  }
  return 0;
}

}  // namespace ember::forge
