// A decoded plan executed on a live queue: validation of a stored plan (DecodePlan, which runs
// ValidatePlan: orderings, shape ids, op counts, the fused leaves' proof) must be enough for it
// to execute, through the engine's own plan path, without touching memory it does not own and
// computing what its ops compute. Input: an encoded plan, as DecodePlan reads it (the same
// bytes as the plan_decode target).
//
// For a plan that decodes, the target builds the queue the plan applies to, as the public API
// would have queued it:
//   * relative tensor id r becomes global id kFirstId + r; relative shape id 0 becomes dim 1
//     and shape id s >= 1 becomes dim s + 1 (distinct, never 1), so that converting the global
//     ops back (OperationConverter) gives exactly plan.operations, which is checked;
//   * scalar placeholders get deterministic values of the kind the API gives the op's dtype
//     (checks::ScalarFor: Float, Int or Bool; Clamp's lo <= hi), slice placeholders the range
//     that keeps the last out-dim elements of each sliced dim;
//   * tensors a plan op reads before any op produced them exist before the segment: they get
//     real buffers with deterministic values, as do Init's outputs (registered before the Init
//     is queued, as Upload does);
//   * the plan reaches the device's store the way a stored plan does: a PlanBacking (the
//     persistent path's interface) hands it over in Load when its first op is first seen.
// The ops are registered on a stream of a CPU MultiStream with the built-in fusers, one at a time
// (Lazy), then the stream drains (Sync). The same ops then run on a second device with fusion
// off (every op its own kernel, in submission order).
//
// Invariants (fuzz::Fail): the materialized ops are the plan's ops in relative form; the fused
// device executes the stored plan (one cache hit, no exploration) and leaves its queue empty;
// neither run throws; both leave the same tensors alive with the same shapes, dtypes and values
// (bit for bit, any NaN equals any NaN: the CPU fused kernels round where unfused ones store,
// tests/end_to_end/differential_test.cpp). Memory errors are the sanitizers' (libFuzzer build).
//
// Plans whose ops no API call sequence could queue are skipped (return), since such a queue
// never exists for a plan to match: a tensor with two shapes or dtypes, one used after its last
// use (ReadWrite) or produced twice, an output not NotInit, an input NotInit, a family dtype
// other than the first input's (the output's for creation ops), and ops that break their
// kind's API rule (dtype classes, numpy broadcasting, matmul inner dims, reshape element counts,
// expand and slice extents, axes in range, a permutation). Skipped as well, to keep an input a
// few milliseconds: more than kMaxOps ops, shape ids above kMaxShapeId (dims above 8), tensors
// above kMaxElements elements. And four op kinds are not materialized (documented limits):
//   * Random: its values depend on the generator's position, which the plan's ordering moves;
//   * Gather and Select: data-dependent indices (an index a prior op computed is any value);
//   * Cat: its out dim is the sum of its inputs', which the injective dim choice above can
//     only meet by accident; a solver for dims is not worth it for one kind.
//
// The parts: plan_execute_limits.h (bounds, dims), plan_execute_api_rules.h (what the API could
// queue), plan_execute_queue.h (the live queue), plan_execute_run.h (one run, and comparing two).
#include <cstddef>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "engine/ir/relative.h"
#include "store/codec/plan_codec.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/plan_execute_limits.h"
#include "tests/fuzz/plan_execute_queue.h"
#include "tests/fuzz/plan_execute_run.h"

namespace {

using namespace ember;
using fuzz::plan_execute::Compare;
using fuzz::plan_execute::Execute;
using fuzz::plan_execute::kTarget;
using fuzz::plan_execute::LiveQueue;
using fuzz::plan_execute::Materialize;
using fuzz::plan_execute::OnePlanBacking;
using fuzz::plan_execute::Run;

}  // namespace

EMBER_FUZZ_TARGET(plan_execute) {
  ExecutionPlan plan;
  if (!DecodePlan(data, &plan).ok()) return;
  const std::optional<LiveQueue> live = Materialize(plan);
  if (!live) return;
  // The queue's own relative form must be the plan's ops, or the plan could not match it.
  OperationConverter converter;
  for (size_t i = 0; i < live->ops.size(); ++i) {
    if (converter.ToRelative(live->ops[i]) != plan.operations[i]) {
      fuzz::Fail(kTarget, fmt::format("materialized op {} does not convert back to the plan's", i));
    }
  }

  OnePlanBacking backing(plan);
  const Run fused = Execute(*live, &backing);
  if (backing.plans_added() != 0 || fused.counters.explorations != 0) {
    fuzz::Fail(kTarget, "the device explored although the stored plan matches its queue");
  }
  if (fused.counters.cache_hits != 1 || backing.hits() != 1) {
    fuzz::Fail(kTarget, fmt::format("the stored plan was hit {} times (backing: {}); expected once",
                                    fused.counters.cache_hits, backing.hits()));
  }
  if (!fused.queue_empty) fuzz::Fail(kTarget, "ops are left queued after the drain");

  const Run unfused = Execute(*live, nullptr);
  for (size_t r = 0; r < live->num_tensors; ++r) {
    const std::string diff = Compare(unfused.tensors[r], fused.tensors[r]);
    if (!diff.empty()) {
      fuzz::Fail(kTarget, fmt::format("tensor {} after the stored plan: {}", r, diff));
    }
  }
}
