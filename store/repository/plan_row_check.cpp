#include "store/repository/plan_row_check.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "store/codec/plan_codec.h"
#include "store/codec/row_checksum.h"
#include "store/repository/column_encoding.h"

namespace ember {

Status DecodeTriggerRow(const TriggerRow& row, ExecutionTrigger* out) {
  switch (row.kind) {
    case static_cast<int>(ExecutionTrigger::Kind::kOnOperations): {
      std::vector<OperationIr> ops;
      if (Status s = DecodeOperations(row.ops_blob, &ops); !s.ok()) return s;
      *out = ExecutionTrigger::OnOperations(std::move(ops));
      return Status::Ok();
    }
    case static_cast<int>(ExecutionTrigger::Kind::kOnSync):
    case static_cast<int>(ExecutionTrigger::Kind::kAlways):
      if (!row.ops_blob.empty()) {
        return Status::Corruption(fmt::format(
            "trigger kind {} carries {} bytes of ops; it has none", row.kind, row.ops_blob.size()));
      }
      *out = row.kind == static_cast<int>(ExecutionTrigger::Kind::kOnSync)
                 ? ExecutionTrigger::OnSync()
                 : ExecutionTrigger::Always();
      return Status::Ok();
    default: return Status::Corruption(fmt::format("unknown trigger kind {}", row.kind));
  }
}

namespace {

// DecodePlanParts after its ops: `plan` holds them decoded.
Status DecodeRest(std::span<const uint8_t> plan_blob, std::span<const TriggerRow> triggers,
                  ExecutionPlan plan, ExecutionPlan* out) {
  if (Status s = DecodeBlockOptimization(plan_blob, &plan.optimization); !s.ok()) {
    return Status::Corruption("plan_blob: " + s.message());
  }
  for (size_t i = 0; i < triggers.size(); ++i) {
    ExecutionTrigger trigger;
    if (Status s = DecodeTriggerRow(triggers[i], &trigger); !s.ok()) {
      return Status::Corruption(fmt::format("trigger {}: {}", i, s.message()));
    }
    plan.triggers.push_back(std::move(trigger));
  }
  if (Status s = ValidatePlan(plan); !s.ok()) {
    return Status::Corruption("invalid plan: " + s.message());
  }
  *out = std::move(plan);
  return Status::Ok();
}

Status DecodeOps(std::span<const uint8_t> ops_blob, ExecutionPlan* plan) {
  if (Status s = DecodeOperations(ops_blob, &plan->operations); !s.ok()) {
    return Status::Corruption("ops_blob: " + s.message());
  }
  return Status::Ok();
}

}  // namespace

Status DecodePlanParts(std::span<const uint8_t> ops_blob, std::span<const uint8_t> plan_blob,
                       std::span<const TriggerRow> triggers, ExecutionPlan* out) {
  ExecutionPlan plan;
  if (Status s = DecodeOps(ops_blob, &plan); !s.ok()) return s;
  return DecodeRest(plan_blob, triggers, std::move(plan), out);
}

Status CheckPlanKeys(const Hash128& plan_key, uint64_t first_op_hash, int64_t num_ops,
                     std::span<const OperationIr> ops) {
  if (!(PlanKey(ops) == plan_key)) {
    return Status::Corruption(fmt::format("plan_key {} is not the key of its ops ({})",
                                          FormatHash(plan_key), FormatHash(PlanKey(ops))));
  }
  if (FirstOpHash(ops) != first_op_hash) {
    return Status::Corruption(fmt::format("first_op_hash {} is not the hash of its first op ({})",
                                          FormatHash(first_op_hash), FormatHash(FirstOpHash(ops))));
  }
  if (num_ops != static_cast<int64_t>(ops.size())) {
    return Status::Corruption(
        fmt::format("num_ops is {} but the plan has {} op(s)", num_ops, ops.size()));
  }
  return Status::Ok();
}

Status DecodeStoredPlan(const StoredPlan& row, ExecutionPlan* out) {
  ExecutionPlan plan;
  if (Status s = DecodeOps(row.ops_blob, &plan); !s.ok()) return s;
  if (Status s = CheckPlanKeys(row.plan_key, row.first_op_hash, row.num_ops, plan.operations);
      !s.ok()) {
    return s;
  }
  return DecodeRest(row.plan_blob, row.triggers, std::move(plan), out);
}

Status CheckPlanRecord(const PlanRecord& record, ExecutionPlan* plan) {
  const std::optional<Hash128> key = PlanKeyFromBytes(record.plan_key);
  if (!key.has_value()) {
    return Status::Corruption(fmt::format("plan_key has {} bytes, not 16", record.plan_key.size()));
  }
  if (std::optional<std::string> mismatch =
          ChecksumMismatch(record.ops_blob, record.plan_blob, FromColumn(record.checksum))) {
    return Status::Corruption(*mismatch);
  }
  ExecutionPlan decoded;
  if (Status s = DecodePlanParts(record.ops_blob, record.plan_blob, record.triggers, &decoded);
      !s.ok()) {
    return s;
  }
  if (Status s =
          CheckPlanKeys(*key, FromColumn(record.first_op_hash), record.num_ops, decoded.operations);
      !s.ok()) {
    return s;
  }
  if (record.ops_bytes != static_cast<int64_t>(record.ops_blob.size()) ||
      record.plan_bytes != static_cast<int64_t>(record.plan_blob.size())) {
    return Status::Corruption(fmt::format(
        "sizes ops_bytes={} plan_bytes={} do not match the blobs ({} and {} bytes)",
        record.ops_bytes, record.plan_bytes, record.ops_blob.size(), record.plan_blob.size()));
  }
  if (plan != nullptr) *plan = std::move(decoded);
  return Status::Ok();
}

std::optional<std::string> ChecksumMismatch(std::span<const uint8_t> ops_blob,
                                            std::span<const uint8_t> plan_blob, uint64_t stored) {
  const uint64_t computed = PlanChecksum(ops_blob, plan_blob);
  if (computed == stored) return std::nullopt;
  return fmt::format("checksum mismatch (stored 0x{:016x}, computed 0x{:016x})", stored, computed);
}

bool ReadLoadedPlan(const SqlRow& row, StoredPlan* plan, BadPlanRow* bad) {
  plan->id = row.Int64(0);
  const std::optional<Hash128> key = PlanKeyFromBytes(row.Blob(1));
  plan->ops_blob = row.Blob(2);
  plan->plan_blob = row.Blob(3);
  plan->checksum = FromColumn(row.Int64(4));
  plan->num_ops = static_cast<uint32_t>(row.Int64(5));
  plan->origin = row.Text(6);
  plan->first_op_hash = FromColumn(row.Int64(7));
  plan->explore_ms = row.Double(8);
  if (!key.has_value()) {
    *bad = {plan->id, "plan_key is not 16 bytes"};
    return false;
  }
  if (std::optional<std::string> mismatch =
          ChecksumMismatch(plan->ops_blob, plan->plan_blob, plan->checksum)) {
    *bad = {plan->id, std::move(*mismatch)};
    return false;
  }
  plan->plan_key = *key;
  return true;
}

}  // namespace ember
