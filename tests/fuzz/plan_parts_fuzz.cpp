// A plan row's parts from arbitrary bytes, as the database stores them (plan_codec.h): the ops
// blob, the strategy blob and one trigger's ops, each decoded on its own, then the assembled
// plan validated as PersistentPlans does before a row joins the store. Whatever the parts,
// nothing crashes, and an assembled plan that passes ValidatePlan survives an encode/decode.
// Input: two little-endian 16-bit lengths, then the ops, the strategy, the trigger's ops.
#include <vector>

#include "store/codec/plan_codec.h"
#include "tests/fuzz/fuzz_target.h"

EMBER_FUZZ_TARGET(plan_parts) {
  using namespace ember;
  if (data.size() < 4) return;
  const size_t ops_len = std::min<size_t>(data[0] | (data[1] << 8), data.size() - 4);
  const size_t strategy_len = std::min<size_t>(data[2] | (data[3] << 8), data.size() - 4 - ops_len);
  const std::span<const uint8_t> ops_bytes = data.subspan(4, ops_len);
  const std::span<const uint8_t> strategy_bytes = data.subspan(4 + ops_len, strategy_len);
  const std::span<const uint8_t> trigger_bytes = data.subspan(4 + ops_len + strategy_len);
  ExecutionPlan plan;
  if (!DecodeOperations(ops_bytes, &plan.operations).ok()) return;
  if (!DecodeBlockOptimization(strategy_bytes, &plan.optimization).ok()) return;
  std::vector<OperationIr> trigger_ops;
  if (!trigger_bytes.empty()) {
    if (!DecodeOperations(trigger_bytes, &trigger_ops).ok()) return;
    plan.triggers.push_back(ExecutionTrigger::OnOperations(std::move(trigger_ops)));
  } else {
    plan.triggers.push_back(ExecutionTrigger::OnSync());
  }
  if (!ValidatePlan(plan).ok()) return;
  ExecutionPlan again;
  if (Status s = DecodePlan(EncodePlan(plan), &again); !s.ok()) {
    fuzz::Fail("plan_parts", "a valid assembled plan does not survive encoding: " + s.ToString());
  }
}
