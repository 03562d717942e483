// A stored plan from arbitrary bytes (the plans of a shared segment, an imported bundle, a
// damaged row): DecodePlan either refuses them or returns a plan that passes ValidatePlan and
// encodes back to bytes that decode to the same plan (store/codec/plan_codec.h).
#include <vector>

#include "store/codec/plan_codec.h"
#include "tests/fuzz/fuzz_target.h"

EMBER_FUZZ_TARGET(plan_decode) {
  using namespace ember;
  ExecutionPlan plan;
  if (!DecodePlan(data, &plan).ok()) return;
  if (Status s = ValidatePlan(plan); !s.ok()) {
    fuzz::Fail("plan_decode", "a decoded plan fails ValidatePlan: " + s.ToString());
  }
  const std::vector<uint8_t> encoded = EncodePlan(plan);
  ExecutionPlan again;
  if (Status s = DecodePlan(encoded, &again); !s.ok()) {
    fuzz::Fail("plan_decode", "a decoded plan's own encoding is refused: " + s.ToString());
  }
  if (EncodePlan(again) != encoded) fuzz::Fail("plan_decode", "encoding is not stable");
}
