// Op lists from arbitrary bytes (a trigger's ops, a plan's ops blob): whatever DecodeOperations
// accepts converts to relative form without crashing; encoding round-trips, for the relative
// form too, with the same plan key; and plan keys are equal exactly when the op lists are
// (engine/ir/canonical.h, Note [Plan key]). Input: a little-endian 16-bit length, then two op
// blobs.
#include <vector>

#include "engine/ir/relative.h"
#include "store/codec/plan_codec.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

std::vector<ember::OperationIr> Relative(const std::vector<ember::OperationIr>& ops) {
  ember::OperationConverter converter;
  std::vector<ember::OperationIr> out;
  out.reserve(ops.size());
  for (const ember::OperationIr& op : ops) out.push_back(converter.ToRelative(op));
  return out;
}

}  // namespace

EMBER_FUZZ_TARGET(ops_canonical) {
  using namespace ember;
  if (data.size() < 2) return;
  const size_t first_len = std::min<size_t>(data[0] | (data[1] << 8), data.size() - 2);
  std::vector<OperationIr> a;
  std::vector<OperationIr> b;
  if (!DecodeOperations(data.subspan(2, first_len), &a).ok() || a.empty()) return;
  [[maybe_unused]] const bool have_b =
      DecodeOperations(data.subspan(2 + first_len), &b).ok() && !b.empty();

  const std::vector<uint8_t> encoded = EncodeOperations(a);
  std::vector<OperationIr> decoded;
  if (Status s = DecodeOperations(encoded, &decoded);
      !s.ok() || EncodeOperations(decoded) != encoded) {
    fuzz::Fail("ops_canonical", "an op list does not survive encoding");
  }
  // The relative form is what the store keeps and keys: it survives its own encoding, with the
  // same key. (Converting it again is not the identity, by design: a relative shape id 1 reads
  // as the real dim 1, which is id 0.)
  const std::vector<OperationIr> relative = Relative(a);
  std::vector<OperationIr> stored;
  if (Status s = DecodeOperations(EncodeOperations(relative), &stored); !s.ok()) {
    fuzz::Fail("ops_canonical", "a relative op list is refused after encoding: " + s.ToString());
  }
  if (EncodeOperations(stored) != EncodeOperations(relative) ||
      PlanKey(stored) != PlanKey(relative)) {
    fuzz::Fail("ops_canonical", "a relative op list changes through its encoding");
  }
#ifndef EMBER_HASH_ZERO  // (that build makes every key equal on purpose)
  if (!have_b) return;
  const std::vector<OperationIr> other = Relative(b);
  if ((PlanKey(relative) == PlanKey(other)) != (relative == other)) {
    fuzz::Fail("ops_canonical", "plan keys are equal but the op lists differ, or the reverse");
  }
#endif
}
