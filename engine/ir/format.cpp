#include "engine/ir/format.h"

#include <bit>
#include <string_view>

#include <fmt/format.h>

namespace ember {
namespace {

// fmt's shortest round-trip form, with ".0" added when it would read as an integer, so a Float
// scalar never prints like an Int one.
std::string FormatDouble(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_not_of("-0123456789") == std::string::npos) s += ".0";
  return s;
}

void AppendPart(std::string& out, bool& first, std::string_view part) {
  if (!first) out += ", ";
  first = false;
  out += part;
}

}  // namespace

std::string FormatTensor(const TensorIr& tensor) {
  return fmt::format("t{}:{}[{}]", tensor.id, DTypeName(tensor.dtype),
                     fmt::join(tensor.shape, ","));
}

std::string FormatTensors(std::span<const TensorIr> tensors) {
  std::string out;
  bool first = true;
  for (const TensorIr& t : tensors) AppendPart(out, first, FormatTensor(t));
  return out;
}

std::string FormatScalar(const ScalarIr& scalar) {
  switch (scalar.kind) {
    case ScalarIr::Kind::kFloat: return FormatDouble(std::bit_cast<double>(scalar.bits));
    case ScalarIr::Kind::kInt: return fmt::format("{}", static_cast<int64_t>(scalar.bits));
    case ScalarIr::Kind::kUInt: return fmt::format("{}u", scalar.bits);
    case ScalarIr::Kind::kBool: return scalar.bits != 0 ? "true" : "false";
  }
  return "?";
}

std::string FormatRange(const Slice& range) {
  std::string out = fmt::format("{}:", range.start);
  if (range.end.has_value()) out += fmt::format("{}", *range.end);
  if (range.step != 1) out += fmt::format(":{}", range.step);
  return out;
}

std::string FormatDistribution(const Distribution& distribution) {
  std::string_view name = "?";
  switch (distribution.kind) {
    case Distribution::Kind::kUniform: name = "uniform"; break;
    case Distribution::Kind::kNormal: name = "normal"; break;
  }
  return fmt::format("{}({}, {})", name, FormatDouble(distribution.a),
                     FormatDouble(distribution.b));
}

std::string FormatOp(const OperationIr& op) {
  std::string args;
  bool first = true;
  for (const TensorIr& t : op.inputs) AppendPart(args, first, FormatTensor(t));
  for (const ScalarIr& s : op.scalars) AppendPart(args, first, FormatScalar(s));
  if (!op.ranges.empty()) {
    std::string ranges;
    bool first_range = true;
    for (const Slice& r : op.ranges) AppendPart(ranges, first_range, FormatRange(r));
    AppendPart(args, first, fmt::format("ranges=[{}]", ranges));
  }
  if (!op.dims.empty()) AppendPart(args, first, fmt::format("dims=[{}]", fmt::join(op.dims, ",")));
  // Only Random reads its distribution; every other op carries the default one.
  if (op.kind == OpKind::kRandom) AppendPart(args, first, FormatDistribution(op.distribution));

  std::string out = fmt::format("{}({})", OpName(op), args);
  if (!op.outputs.empty()) out += " -> " + FormatTensors(op.outputs);
  return out;
}

}  // namespace ember
