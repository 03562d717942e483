#include "engine/stream/miss_explanation.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "engine/core/check.h"
#include "engine/ir/hash.h"

namespace ember {
namespace {

constexpr std::array<std::string_view, kNumMissCauses> kCauseNames = {
    "no_candidate", "op_kind",   "dtype",    "status",  "shape",
    "data_flow",    "attribute", "op_count", "trigger", "environment",
};

// What differs between the segment's op and the plan's op at one position.
struct OpDifference {
  MissCause cause = MissCause::kAttribute;
  std::string what;
  std::string where;  // operand and dim, for the pattern
  size_t distance = 0;
  std::optional<int64_t> value_here;
  std::optional<int64_t> value_stored;
};

std::string_view StatusName(TensorStatus status) {
  switch (status) {
    case TensorStatus::kNotInit: return "NotInit";
    case TensorStatus::kReadOnly: return "ReadOnly";
    case TensorStatus::kReadWrite: return "ReadWrite";
  }
  return "?";
}

std::string RelativeShape(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ",")); }

// "64×32" from relative shape ids and the real dim of each id; "" when a dim is unknown.
std::string RealDims(const Shape& shape, std::span<const int64_t> dims) {
  std::string out;
  for (const int64_t id : shape) {
    if (id < 0 || static_cast<size_t>(id) >= dims.size()) return "";
    if (!out.empty()) out += "×";
    out += fmt::to_string(dims[id]);
  }
  return shape.empty() ? "a scalar" : out;
}

// "the tensor stays alive after this op" and the like: why a status is what it is.
std::string_view StatusMeaning(TensorStatus status) {
  switch (status) {
    case TensorStatus::kNotInit: return "written by this op";
    case TensorStatus::kReadOnly: return "still used after this op";
    case TensorStatus::kReadWrite: return "its last use";
  }
  return "?";
}

// The kind names differ only by the scalar spelling: `x * 2.0` vs `x * t`.
std::string ScalarHint(OpKind here, OpKind stored) {
  const std::string_view a = OpKindName(here);
  const std::string_view b = OpKindName(stored);
  const auto is_scalar_of = [](std::string_view scalar, std::string_view tensor) {
    for (const std::string_view suffix : {std::string_view("Scalar"), std::string_view("Elem")}) {
      if (scalar.size() == tensor.size() + suffix.size() && scalar.starts_with(tensor) &&
          scalar.ends_with(suffix)) {
        return true;
      }
    }
    return false;
  };
  if (is_scalar_of(b, a)) return " (a scalar operand became a tensor)";
  if (is_scalar_of(a, b)) return " (a tensor operand became a scalar)";
  return "";
}

void Note(OpDifference& d, bool& found, MissCause cause, std::string what, std::string where) {
  ++d.distance;
  if (found) return;
  found = true;
  d.cause = cause;
  d.what = std::move(what);
  d.where = std::move(where);
}

void CompareTensor(const TensorIr& here, const TensorIr& stored, std::string_view role,
                   const MissSegment& segment, const MissCandidate& plan, OpDifference& d,
                   bool& found) {
  if (here.dtype != stored.dtype) {
    Note(d, found, MissCause::kDType,
         fmt::format("{} dtype {} vs {}", role, DTypeName(here.dtype), DTypeName(stored.dtype)),
         std::string(role));
  }
  if (here.shape != stored.shape) {
    size_t dim = 0;
    while (dim < here.shape.size() && dim < stored.shape.size() &&
           here.shape[dim] == stored.shape[dim]) {
      ++dim;
    }
    std::string what = fmt::format("{} shape {} vs {}", role, RelativeShape(here.shape),
                                   RelativeShape(stored.shape));
    const std::string real_here = RealDims(here.shape, segment.dims);
    const std::string real_stored = RealDims(stored.shape, plan.found_dims);
    if (!real_here.empty()) {
      what += fmt::format(" ({} gives {}, the stored plan has {}", real_here,
                          RelativeShape(here.shape), RelativeShape(stored.shape));
      what += real_stored.empty() ? ")" : fmt::format(" from {})", real_stored);
    }
    if (here.shape.size() != stored.shape.size()) {
      what += fmt::format(": rank {} vs {}", here.shape.size(), stored.shape.size());
    } else {
      what += fmt::format(": dim {} differs", dim);
    }
    const bool first = !found;
    Note(d, found, MissCause::kShape, std::move(what), fmt::format("{} dim {}", role, dim));
    if (first && dim < here.shape.size() && dim < stored.shape.size()) {
      const int64_t id_here = here.shape[dim];
      const int64_t id_stored = stored.shape[dim];
      if (id_here >= 0 && static_cast<size_t>(id_here) < segment.dims.size()) {
        d.value_here = segment.dims[id_here];
      }
      if (id_stored >= 0 && static_cast<size_t>(id_stored) < plan.found_dims.size()) {
        d.value_stored = plan.found_dims[id_stored];
      }
    }
  }
  if (here.status != stored.status) {
    Note(d, found, MissCause::kStatus,
         fmt::format("{} is {} vs {} (here {}, in the stored plan {})", role,
                     StatusName(here.status), StatusName(stored.status), StatusMeaning(here.status),
                     StatusMeaning(stored.status)),
         std::string(role));
  }
  if (here.id != stored.id) {
    Note(d, found, MissCause::kDataFlow,
         fmt::format("{} is tensor t{} vs t{} (the ops connect differently)", role, here.id,
                     stored.id),
         std::string(role));
  }
}

void CompareTensors(std::span<const TensorIr> here, std::span<const TensorIr> stored,
                    std::string_view role, const MissSegment& segment, const MissCandidate& plan,
                    OpDifference& d, bool& found) {
  if (here.size() != stored.size()) {
    // A Cat of one input per token: the arity is the sequence length, the value that varies.
    if (!found) {
      d.value_here = static_cast<int64_t>(here.size());
      d.value_stored = static_cast<int64_t>(stored.size());
    }
    Note(d, found, MissCause::kAttribute,
         fmt::format("{} {}s vs {}", here.size(), role, stored.size()), fmt::format("{}s", role));
  }
  for (size_t i = 0; i < std::min(here.size(), stored.size()); ++i) {
    CompareTensor(here[i], stored[i], fmt::format("{} {}", role, i), segment, plan, d, found);
  }
}

// REQUIRES: here != stored.
OpDifference CompareOps(const OperationIr& here, const OperationIr& stored,
                        const MissSegment& segment, const MissCandidate& plan) {
  OpDifference d;
  bool found = false;
  if (here.kind != stored.kind) {
    // Nothing else about two different ops is worth comparing: far away.
    d.cause = MissCause::kOpKind;
    d.what =
        fmt::format("{} vs {}{}", OpName(here), OpName(stored), ScalarHint(here.kind, stored.kind));
    d.where = "kind";
    d.distance = 1000;
    return d;
  }
  if (here.dtype != stored.dtype) {
    Note(d, found, MissCause::kDType,
         fmt::format("dtype {} vs {}", DTypeName(here.dtype), DTypeName(stored.dtype)), "dtype");
  }
  CompareTensors(here.inputs, stored.inputs, "input", segment, plan, d, found);
  CompareTensors(here.outputs, stored.outputs, "output", segment, plan, d, found);
  if (here.scalars.size() != stored.scalars.size()) {
    Note(d, found, MissCause::kAttribute,
         fmt::format("{} scalars vs {}", here.scalars.size(), stored.scalars.size()), "scalars");
  }
  if (here.ranges.size() != stored.ranges.size()) {
    Note(d, found, MissCause::kAttribute,
         fmt::format("{} sliced dims vs {}", here.ranges.size(), stored.ranges.size()), "ranges");
  }
  if (here.dims != stored.dims) {
    Note(d, found, MissCause::kAttribute,
         fmt::format("dims [{}] vs [{}]", fmt::join(here.dims, ","), fmt::join(stored.dims, ",")),
         "dims");
  }
  if (!(here.distribution == stored.distribution)) {
    Note(d, found, MissCause::kAttribute, "another random distribution", "distribution");
  }
  if (!found) {
    // Equal fields but unequal ops cannot happen (operator== is field-wise); say so plainly
    // rather than invent a cause.
    Note(d, found, MissCause::kAttribute, "an attribute", "other");
  }
  return d;
}

// Where the segment and one candidate part, and how.
struct Comparison {
  size_t agreed = 0;  // ops equal from the start
  MissCause cause = MissCause::kAttribute;
  size_t op = 0;
  std::string op_name;
  std::string what;
  std::string where;
  size_t distance = 0;
  std::optional<int64_t> value_here;
  std::optional<int64_t> value_stored;
};

std::string OpsNames(std::span<const OperationIr> ops) {
  std::vector<std::string> names;
  for (const OperationIr& op : ops) names.push_back(OpName(op));
  return fmt::format("{}", fmt::join(names, ", "));
}

// The plan's ops are all at the segment's head: why it did not fire.
void ExplainFullMatch(const MissSegment& segment, const MissCandidate& plan, Comparison& c) {
  const size_t n = plan.operations.size();
  const std::span<const OperationIr> next = segment.operations.subspan(n);
  c.op = n;
  c.distance = 0;
  if (segment.mode == ExecutionMode::kSync) {
    c.cause = MissCause::kOpCount;
    c.op_name = next.empty() ? "" : OpName(next.front());
    c.what = fmt::format(
        "matches the first {} op(s), but the segment has {} at a sync, which runs only a plan of "
        "the whole segment",
        n, segment.operations.size());
    c.where = "longer at sync";
    return;
  }
  c.cause = MissCause::kTrigger;
  c.op_name = next.empty() ? "" : OpName(next.front());
  // The trigger whose ops agree longest with what followed.
  const ExecutionTrigger* best = nullptr;
  size_t best_agreed = 0;
  for (const ExecutionTrigger& t : plan.triggers) {
    if (t.kind != ExecutionTrigger::Kind::kOnOperations) continue;
    size_t agreed = 0;
    while (agreed < t.operations.size() && agreed < next.size() &&
           t.operations[agreed] == next[agreed]) {
      ++agreed;
    }
    if (best == nullptr || agreed > best_agreed) {
      best = &t;
      best_agreed = agreed;
    }
  }
  c.where = "trigger";
  if (best == nullptr) {
    c.what = fmt::format(
        "matches all {} op(s), but it was found at a sync (no trigger for lazy execution), and "
        "here {} followed",
        n, next.empty() ? std::string("nothing") : OpsNames(next.first(1)));
    c.where = "trigger sync-only";
    return;
  }
  if (best_agreed < best->operations.size() && best_agreed < next.size()) {
    const OpDifference d =
        CompareOps(next[best_agreed], best->operations[best_agreed], segment, plan);
    c.what = fmt::format("matches all {} op(s), but its trigger expects {} at op {}, here {}: {}",
                         n, OpName(best->operations[best_agreed]), n + best_agreed,
                         OpName(next[best_agreed]), d.what);
    c.where += " " + d.where;
    return;
  }
  c.what = fmt::format(
      "matches all {} op(s), but its trigger waits for {} op(s) after them ({}) and the segment "
      "has {}",
      n, best->operations.size(), OpsNames(best->operations), next.size());
}

Comparison Compare(const MissSegment& segment, const MissCandidate& plan) {
  Comparison c;
  const std::span<const OperationIr> ops = segment.operations;
  const size_t common = std::min(ops.size(), plan.operations.size());
  while (c.agreed < common && ops[c.agreed] == plan.operations[c.agreed]) ++c.agreed;
  if (c.agreed < common) {
    OpDifference d = CompareOps(ops[c.agreed], plan.operations[c.agreed], segment, plan);
    c.cause = d.cause;
    c.op = c.agreed;
    c.op_name = OpName(ops[c.agreed]);
    c.what = std::move(d.what);
    c.where = std::move(d.where);
    c.distance = d.distance;
    c.value_here = d.value_here;
    c.value_stored = d.value_stored;
    return c;
  }
  if (plan.operations.size() > ops.size()) {
    c.cause = MissCause::kOpCount;
    c.op = ops.size();
    c.what = fmt::format(
        "matches all {} op(s) of the segment, but covers {} (the segment was cut short: {} "
        "came first)",
        ops.size(), plan.operations.size(),
        segment.mode == ExecutionMode::kSync ? "a sync" : "the end of the exploration");
    c.where = "shorter";
    return c;
  }
  ExplainFullMatch(segment, plan, c);
  return c;
}

bool Nearer(const Comparison& a, const Comparison& b) {
  if (a.agreed != b.agreed) return a.agreed > b.agreed;
  return a.distance < b.distance;
}

}  // namespace

std::string_view MissCauseName(MissCause cause) {
  const size_t i = static_cast<size_t>(cause);
  return i < kCauseNames.size() ? kCauseNames[i] : "unknown";
}

std::optional<MissCause> ParseMissCause(std::string_view name) {
  for (size_t i = 0; i < kCauseNames.size(); ++i) {
    if (kCauseNames[i] == name) return static_cast<MissCause>(i);
  }
  return std::nullopt;
}

std::string MissExplanation::Summary() const {
  switch (cause) {
    case MissCause::kNoCandidate: return difference;
    case MissCause::kOpCount:
    case MissCause::kTrigger:
    case MissCause::kEnvironment: return fmt::format("nearest plan {} {}", plan, difference);
    default:
      return fmt::format("nearest plan {} differs at op {} ({}): {}", plan, op, op_name,
                         difference);
  }
}

std::string MissExplanation::Line() const {
  return fmt::format("[plan] miss ({}): {}", MissCauseName(cause), Summary());
}

MissExplanation ExplainMiss(const MissSegment& segment, std::span<const MissCandidate> candidates) {
  EMBER_CHECK(!segment.operations.empty(), "explaining an empty segment");
  const OperationIr& first = segment.operations.front();
  std::vector<std::string> kinds;
  for (const OperationIr& op : segment.operations) kinds.emplace_back(OpKindName(op.kind));
  const std::string shape_of_segment = fmt::format("{}", fmt::join(kinds, ","));

  MissExplanation out;
  out.op_name = OpName(first);
  std::optional<Comparison> nearest;
  const MissCandidate* nearest_plan = nullptr;
  std::optional<Comparison> elsewhere;  // a plan of another environment that fits
  const MissCandidate* elsewhere_plan = nullptr;
  for (const MissCandidate& plan : candidates) {
    if (plan.operations.empty() || plan.operations.front().kind != first.kind) continue;
    Comparison c = Compare(segment, plan);
    if (!plan.environment_difference.empty()) {
      // Another environment's plan explains the miss only when its ops fit this segment.
      const bool fits = c.agreed == plan.operations.size();
      if (fits && elsewhere_plan == nullptr) {
        elsewhere = std::move(c);
        elsewhere_plan = &plan;
      }
      continue;
    }
    if (!nearest.has_value() || Nearer(c, *nearest)) {
      nearest = std::move(c);
      nearest_plan = &plan;
    }
  }
  if (nearest_plan == nullptr && elsewhere_plan != nullptr) {
    out.cause = MissCause::kEnvironment;
    out.plan = elsewhere_plan->label;
    out.difference = fmt::format("fits this segment, but was stored under another environment: {}",
                                 elsewhere_plan->environment_difference);
    out.pattern = HashText(fmt::format("{}|environment", shape_of_segment));
    return out;
  }
  if (nearest_plan == nullptr) {
    out.cause = MissCause::kNoCandidate;
    out.difference = fmt::format("no stored plan starts with {}", OpName(first));
    out.pattern = HashText(fmt::format("{}|no_candidate", shape_of_segment));
    return out;
  }
  Comparison& c = *nearest;
  out.cause = c.cause;
  out.plan = nearest_plan->label;
  out.op = c.op;
  if (!c.op_name.empty()) out.op_name = std::move(c.op_name);
  out.difference = std::move(c.what);
  out.value_here = c.value_here;
  out.value_stored = c.value_stored;
  out.pattern =
      HashText(fmt::format("{}|{}|{}|{}", shape_of_segment, MissCauseName(c.cause), c.op, c.where));
  return out;
}

}  // namespace ember
