// Why a segment explored although plans were stored: the nearest stored plan and the first
// thing that differs, in terms a user can act on (issue 21; docs/PLAN_DATABASE.md, "Why a
// segment missed").
//
// Note [Explaining a miss]
// A plan fires only when the segment's relative ops equal the plan's, op for op (Policy,
// engine/stream/policy.h), and, in Lazy mode, the ops after it match one of its triggers. So
// a miss always has a first point of difference against each stored plan whose first op has
// the segment's first op kind (the candidates; other kinds are different programs, not near
// misses). The nearest candidate is the one whose ops agree with the segment longest; ties go
// to the one whose differing op differs in fewer ways, then to the older plan. Its first
// difference is reported as one cause:
//   op_kind      another op at that position (`x * 2.0` became `x * t`: MulScalar vs Mul);
//   dtype        the op's family dtype or one operand's dtype;
//   status       an operand's ReadOnly / ReadWrite (a value kept alive, or dropped sooner);
//   shape        an operand's relative shape ids (Note [Relative form]: 64×32 gives [1,2]
//                where 64×64 gave [1,1]) — with the real dims on both sides when known;
//   data_flow    an operand is another tensor (the ops connect differently);
//   attribute    an axis, a Cat's arity, a slice's rank, a distribution;
//   op_count     every op agrees, but the segment is shorter than the plan, or at a sync
//                longer than it (a sync runs only a plan of the whole segment);
//   trigger      the plan's ops are all there, but what followed matched none of its
//                triggers (Lazy);
//   environment  no candidate here, but a plan for the same first op is stored under another
//                environment (max_blocks, the fusers, the device: Note [Environment
//                fingerprint]);
//   no_candidate nothing stored starts with this op kind (a first sighting).
// The cause names are stored text (the plan database's workload_misses.cause): never rename.
//
// The pattern groups misses that are the same miss again: the segment's op kinds, the cause,
// and where (op position, operand, dim) — not the values, so a dynamic sequence length that
// changes every step makes one pattern that `ember-plans explain` counts and advises on.
//
// Pure functions; callable from any thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ir/operation_ir.h"
#include "engine/stream/execution_mode.h"
#include "engine/stream/plan.h"

namespace ember {

enum class MissCause : uint8_t {
  kNoCandidate,
  kOpKind,
  kDType,
  kStatus,
  kShape,
  kDataFlow,
  kAttribute,
  kOpCount,
  kTrigger,
  kEnvironment,
};
inline constexpr size_t kNumMissCauses = 10;

// "no_candidate", "op_kind", "dtype", ... (stored text).
std::string_view MissCauseName(MissCause cause);
std::optional<MissCause> ParseMissCause(std::string_view name);

// Misses by cause (Stats, the workloads listing), indexed by MissCause.
using MissCounts = std::array<uint64_t, kNumMissCauses>;

// One stored plan the segment is compared with.
struct MissCandidate {
  std::string label;                        // "#2" (in-memory id) or "stored plan 17" (a row)
  std::span<const OperationIr> operations;  // relative
  std::span<const ExecutionTrigger> triggers;
  std::span<const int64_t> found_dims;  // real dim per shape id where found; may be empty
  // Set for a plan of another environment: what differs ("max_blocks 5 vs 3").
  std::string environment_difference;
};

// The segment that missed.
struct MissSegment {
  std::span<const OperationIr> operations;  // relative
  std::span<const int64_t> dims;            // real dim per shape id (index 0 holds 1); may be empty
  ExecutionMode mode = ExecutionMode::kLazy;
};

struct MissExplanation {
  MissCause cause = MissCause::kNoCandidate;
  std::string plan;        // label of the nearest plan; empty with kNoCandidate
  size_t op = 0;           // position of the first difference in the segment
  std::string op_name;     // "NumericFloat::Mul": the segment's op there
  std::string difference;  // "input 0 shape [1,2] vs [1,1] (64×32 gives [1,2], ...)"
  uint64_t pattern = 0;    // see Note [Explaining a miss]
  // The value that differs, here and (when known) in the plan's segment: for kShape the real
  // dim, for a Cat's arity (kAttribute) the number of inputs. What `ember-plans explain`
  // collects to tell a dim that changes every step.
  std::optional<int64_t> value_here;
  std::optional<int64_t> value_stored;

  // "[plan] miss (shape): nearest plan #2 differs at op 0 (NumericFloat::Mul): input 0 shape
  // ...": the cause in parentheses, so that a recorded log can be read back
  // (`ember-plans explain --log`).
  std::string Line() const;
  // The same without "[plan] miss (cause): " (for tables).
  std::string Summary() const;
};

// REQUIRES: !segment.operations.empty().
MissExplanation ExplainMiss(const MissSegment& segment, std::span<const MissCandidate> candidates);

}  // namespace ember
