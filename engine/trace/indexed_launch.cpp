#include "engine/trace/indexed_launch.h"

#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ember {

std::optional<std::string> IndexedLaunchProblem(
    const FuseOp& op, const Shape& block_shape,
    const std::function<std::optional<IndexedOperand>(uint32_t)>& input) {
  const auto rank = static_cast<int64_t>(block_shape.size());
  if (op.dim < 0 || op.dim >= rank) return fmt::format("dim {} out of range", op.dim);
  const bool cat = op.kind == FuseOpKind::kCat;
  if (cat ? op.indexed.empty() : op.indexed.size() != 2) {
    return fmt::format("{} operands", op.indexed.size());
  }
  std::vector<IndexedOperand> operands;
  for (const FuseArg& arg : op.indexed) {
    std::optional<IndexedOperand> bound;
    if (arg.kind == FuseArgKind::kInput) bound = input(arg.pos);
    if (!bound || bound->shape == nullptr) return "an operand is not an input";
    if (bound->dtype != arg.dtype) {
      return fmt::format("a {} input read as {}", DTypeName(bound->dtype), DTypeName(arg.dtype));
    }
    operands.push_back(*bound);
  }
  auto describe = [&] {
    std::vector<std::string> parts;
    for (const IndexedOperand& o : operands) {
      parts.push_back(fmt::format("{} {}", DTypeName(o.dtype), *o.shape));
    }
    return fmt::format("{}", fmt::join(parts, ", "));
  };
  const size_t data = cat ? operands.size() : 1;
  for (size_t k = 0; k < data; ++k) {
    if (operands[k].shape->size() != block_shape.size()) {
      return fmt::format("an input of another rank ({})", describe());
    }
  }
  const auto dim = static_cast<size_t>(op.dim);
  if (!cat) {
    const IndexedOperand& indices = operands[1];
    if (!IsInt(indices.dtype)) return fmt::format("{} indices", DTypeName(indices.dtype));
    const bool fits = op.kind == FuseOpKind::kGather
                          ? *indices.shape == block_shape
                          : indices.shape->size() == 1 && (*indices.shape)[0] == block_shape[dim];
    if (!fits) return fmt::format("indices of shape {}", *indices.shape);
    return std::nullopt;
  }
  int64_t along = 0;
  for (const IndexedOperand& o : operands) {
    if (o.dtype != operands[0].dtype) return fmt::format("inputs of two dtypes ({})", describe());
    for (size_t d = 0; d < block_shape.size(); ++d) {
      if (d != dim && (*o.shape)[d] != block_shape[d]) {
        return fmt::format("an input of shape {}", *o.shape);
      }
    }
    along += (*o.shape)[dim];
  }
  if (along != block_shape[dim]) {
    return fmt::format("inputs {} long along dim {} ({})", along, op.dim, describe());
  }
  return std::nullopt;
}

}  // namespace ember
