// ProveFusedLeaves: that every fused leaf of a plan computes what the plan's ops compute.
//
// Note [Optimization proof]
// A stored plan carries, for each fused leaf Optimization{opt, ordering, score}, the state of
// `opt` (its fused trace, len and score) next to the relative ops it claims to run. Checksums
// only catch accidents (the checksum is not a secret), and decoding only checks that a trace is
// well formed, so a trace edited by hand — a Mean made an ArgMax, a scalar placeholder pointed
// at another scalar — used to load and compute something else (issue 13, part 3). The proof
// closes that: a leaf is accepted only when a fresh built-in fuser of the kind its state names
// (engine/fuse/builtin_fusers.h, with the CPU backend's binding limit), fed the plan's ops at the
// leaf's positions in the leaf's order, accepts every one of them, is ready, reports the leaf's
// score, and finishes with an optimization equal to the decoded one (name, len, score, trace:
// equal values are byte-identical canonical states, Note [Canonical messages] in
// store/codec/canonical_message.h). So the stored state is exactly what exploration would make of
// these ops again, and no byte of it can change what the plan computes: a changed byte fails
// to decode, or gives a state that differs from the re-derived one, or lies in bits that no
// field uses (padding, which Cap'n Proto's canonical check cannot see and decoding ignores),
// so that the decoded state is the genuine one.
//
// Why a genuine plan always passes (no false rejection costs a user the warm start):
//   * a fuser is a pure function of the relative ops it is fed; it sees nothing else (no
//     values, no device, no global tensor ids);
//   * exploration feeds a block's fusers its ops in registration order, and the fused leaf is
//     the first len() of them in that order (Block::Optimize, engine/search/block.cpp); holes
//     and the sync tail are searched over the same relative ops, with positions mapped back
//     (StreamOptimizer::Optimize, Explorer::CoverTail); order repair moves fused leaves whole
//     and never reorders inside one (engine/search/order_repair.h);
//   * the plan's ops are a prefix of the segment's relative ops, so they are the very ops the
//     fuser saw, in the same relative frame;
//   * a fuser ignores every op after the one it closed on, and an op it rejects leaves it as it
//     was (TraceOpFuser::Fuse restores its reference shape), so the ops the block fed after the
//     leaf's last one change nothing;
//   * the fusers, their versions and the binding limit are pinned by the environment
//     fingerprint (engine/api/device_registry.cpp): a plan is only read by the environment
//     that made it.
// tests/end_to_end/plan_proof_test.cpp re-derives every plan the explorer makes of the
// differential test's random programs.
//
// Pure function; callable from any thread. Costs one fusion per fused leaf (warm-start figures
// in docs/BENCHMARKS.md).
#pragma once

#include "engine/core/status.h"
#include "engine/stream/plan.h"

namespace ember {

// Corruption naming the first leaf that is not what its fuser makes of its ops.
// REQUIRES: every fused leaf's positions index plan.operations (ValidatePlan checks that
// first; a position out of range is reported, not trusted).
Status ProveFusedLeaves(const ExecutionPlan& plan);

}  // namespace ember
