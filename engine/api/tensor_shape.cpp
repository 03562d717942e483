// ember::Tensor shape and data-movement ops: reshape, swap-dims, permute, slice, expand, gather,
// select, cat.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/api/tensor_ops.h"

namespace ember {

using detail::Emit;
using detail::IntoIr;
using detail::LiveServer;
using detail::NewOutputIr;

namespace {

Tensor ReshapeImpl(Tensor x, std::vector<int64_t> shape) {
  const char* op = "Reshape";
  auto s = LiveServer(x, op);
  const int64_t total = x.NumElements();
  // Every message shows the shape as the caller wrote it (the -1 is replaced below).
  const std::string wanted = fmt::format("cannot reshape {} ({} elements) to {}",
                                         checks::Describe(x), total, checks::DescribeShape(shape));
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer >= 0) checks::Fail(op, wanted + ": more than one -1");
      infer = static_cast<int>(i);
    } else if (shape[i] < 1) {
      checks::Fail(
          op, fmt::format("{}: dim {} = {}; expected dims >= 1 (or one -1)", wanted, i, shape[i]));
    } else {
      if (shape[i] > checks::kMaxElements / known) {
        checks::Fail(op, fmt::format("{}: more than {} elements; expected the same number of "
                                     "elements",
                                     wanted, checks::kMaxElements));
      }
      known *= shape[i];
    }
  }
  if (infer >= 0 && total % known == 0) shape[static_cast<size_t>(infer)] = total / known;
  if ((infer >= 0 && shape[static_cast<size_t>(infer)] == -1) || NumElements(shape) != total) {
    checks::Fail(op, wanted + "; expected the same number of elements");
  }
  TensorIr out = NewOutputIr(std::move(shape), x.Dtype());
  TensorIr in = IntoIr(x);
  return Emit(s, ir::Unary(OpKind::kReshape, in, out), {&x});
}

Tensor SwapDimsImpl(Tensor x, int64_t dim1, int64_t dim2) {
  const char* op = "SwapDims";
  auto s = LiveServer(x, op);
  const int64_t a = checks::NormalizeDim(op, dim1, x);
  const int64_t b = checks::NormalizeDim(op, dim2, x);
  Dims shape = x.Shape();
  std::swap(shape[static_cast<size_t>(a)], shape[static_cast<size_t>(b)]);
  TensorIr out = NewOutputIr(std::move(shape), x.Dtype());
  TensorIr in = IntoIr(x);
  return Emit(s, ir::SwapDims(in, a, b, out), {&x});
}

Tensor PermuteImpl(Tensor x, std::vector<int64_t> axes) {
  const char* op = "Permute";
  auto s = LiveServer(x, op);
  const size_t rank = x.Shape().size();
  // Messages show the axes as the caller wrote them (the loop normalizes them in place).
  const std::string asked =
      fmt::format("axes [{}] for {}", fmt::join(axes, ","), checks::Describe(x));
  if (axes.size() != rank) {
    checks::Fail(op, fmt::format("{}; expected a permutation of all {} dims", asked, rank));
  }
  std::vector<bool> seen(rank, false);
  Dims shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    axes[i] = checks::NormalizeDim(op, axes[i], x);
    if (seen[static_cast<size_t>(axes[i])]) {
      checks::Fail(op, fmt::format("{} name dim {} twice; expected a permutation", asked, axes[i]));
    }
    seen[static_cast<size_t>(axes[i])] = true;
    shape[i] = x.Shape()[static_cast<size_t>(axes[i])];
  }
  TensorIr out = NewOutputIr(std::move(shape), x.Dtype());
  TensorIr in = IntoIr(x);
  return Emit(s, ir::Permute(in, std::move(axes), out), {&x});
}

// Number of elements a Slice takes from a dim of `size` (see ember/slice.h).
int64_t SliceLength(const Slice& r, int64_t size) {
  auto clamp = [size](int64_t v) { return std::clamp(v < 0 ? v + size : v, int64_t{0}, size); };
  const int64_t start = clamp(r.start);
  const int64_t end = r.end ? clamp(*r.end) : size;
  if (end <= start) return 0;
  const int64_t step = r.step < 0 ? -r.step : r.step;
  // Not (end - start + step - 1) / step: that overflows for a step near INT64_MAX.
  return (end - start - 1) / step + 1;
}

Tensor SliceImpl(Tensor x, std::vector<Slice> ranges) {
  const char* op = "Slice";
  auto s = LiveServer(x, op);
  if (ranges.size() > x.Shape().size()) {
    checks::Fail(op, fmt::format("{} ranges for {}; expected at most one per dim", ranges.size(),
                                 checks::Describe(x)));
  }
  Dims shape = x.Shape();
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (ranges[i].step == 0 || ranges[i].step == INT64_MIN) {
      checks::Fail(op, fmt::format("range {} for {} has step {}; expected a non-zero step (and "
                                   "not INT64_MIN)",
                                   i, checks::Describe(x), ranges[i].step));
    }
    // A step at least as long as the dim takes one element, as a step of the dim's size does,
    // so such a step is queued as the dim's size: every longer step then makes the same op (one
    // plan), and no kernel multiplies a stride by a step near INT64_MAX (the CPU's SliceView
    // bounds the step as well).
    const int64_t step = ranges[i].step;
    ranges[i].step = std::clamp(step, -shape[i], shape[i]);
    shape[i] = SliceLength(ranges[i], shape[i]);
    if (shape[i] == 0) {
      checks::Fail(op, fmt::format("range {} ({}..{}, step {}) selects no element of dim {} of "
                                   "{}; ember has no empty tensors",
                                   i, ranges[i].start,
                                   ranges[i].end ? fmt::to_string(*ranges[i].end) : "end", step, i,
                                   checks::Describe(x)));
    }
  }
  TensorIr out = NewOutputIr(std::move(shape), x.Dtype());
  TensorIr in = IntoIr(x);
  return Emit(s, ir::SliceOp(in, std::move(ranges), out), {&x});
}

Tensor ExpandImpl(Tensor x, std::vector<int64_t> shape) {
  const char* op = "Expand";
  auto s = LiveServer(x, op);
  const Dims& from = x.Shape();
  // Every message shows the shape as the caller wrote it (the loop replaces each -1).
  const std::string wanted =
      fmt::format("cannot expand {} to {}", checks::Describe(x), checks::DescribeShape(shape));
  if (shape.size() < from.size()) {
    checks::Fail(op, fmt::format("{}: fewer dims; expected rank >= {}", wanted, from.size()));
  }
  const size_t lead = shape.size() - from.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    const int64_t src = i < lead ? 1 : from[i - lead];
    if (shape[i] == -1 && i < lead) {
      checks::Fail(op, fmt::format("{}: -1 at the new leading dim {}; -1 keeps an existing dim, "
                                   "a new dim needs its size",
                                   wanted, i));
    }
    if (shape[i] == -1) shape[i] = src;
    if (shape[i] < 1) {
      checks::Fail(op, fmt::format("{}: dim {} = {}; expected every dim >= 1 (or -1 to keep an "
                                   "existing dim)",
                                   wanted, i, shape[i]));
    }
    if (src != 1 && src != shape[i]) {
      checks::Fail(op, fmt::format("{}: dim {} has size {}; expected the source dim to be 1 or "
                                   "equal",
                                   wanted, i, src));
    }
  }
  checks::RequireResultFits(op, shape, wanted);
  TensorIr out = NewOutputIr(std::move(shape), x.Dtype());
  TensorIr in = IntoIr(x);
  return Emit(s, ir::Unary(OpKind::kExpand, in, out), {&x});
}

Tensor GatherImpl(Tensor x, int64_t dim, Tensor indices) {
  const char* op = "Gather";
  auto s = LiveServer(x, op);
  checks::RequireDefined(op, indices, "the indices tensor");
  checks::RequireSameDevice(op, x, indices);
  checks::RequireIntIndices(op, indices);
  const int64_t d = checks::NormalizeDim(op, dim, x);
  const Dims& xs = x.Shape();
  const Dims& is = indices.Shape();
  bool ok = xs.size() == is.size();
  for (size_t i = 0; ok && i < xs.size(); ++i) {
    if (static_cast<int64_t>(i) != d && is[i] > xs[i]) ok = false;
  }
  if (!ok) {
    checks::Fail(op, fmt::format("indices {} for {} along dim {}; expected the same rank and "
                                 "index dims no larger than the tensor's outside dim {}",
                                 checks::Describe(indices), checks::Describe(x), d, d));
  }
  TensorIr out = NewOutputIr(is, x.Dtype());
  TensorIr t = IntoIr(x);
  TensorIr i = IntoIr(indices);
  return Emit(s, ir::Indexed(OpKind::kGather, t, d, i, out), {&x, &indices});
}

Tensor SelectImpl(Tensor x, int64_t dim, Tensor indices) {
  const char* op = "Select";
  auto s = LiveServer(x, op);
  checks::RequireDefined(op, indices, "the indices tensor");
  checks::RequireSameDevice(op, x, indices);
  checks::RequireIntIndices(op, indices);
  const int64_t d = checks::NormalizeDim(op, dim, x);
  if (indices.Shape().size() != 1) {
    checks::Fail(op, fmt::format("indices {}; expected a 1-D tensor", checks::Describe(indices)));
  }
  Dims shape = x.Shape();
  shape[static_cast<size_t>(d)] = indices.Shape()[0];
  checks::RequireResultFits(op, shape,
                            fmt::format("{} indexed by {} along dim {}", checks::Describe(x),
                                        checks::Describe(indices), d));
  TensorIr out = NewOutputIr(std::move(shape), x.Dtype());
  TensorIr t = IntoIr(x);
  TensorIr i = IntoIr(indices);
  return Emit(s, ir::Indexed(OpKind::kSelect, t, d, i, out), {&x, &indices});
}

}  // namespace

EMBER_DEFINE_METHOD(Reshape, ReshapeImpl, (std::vector<int64_t> shape), std::move(shape))
EMBER_DEFINE_METHOD(SwapDims, SwapDimsImpl, (int64_t dim1, int64_t dim2), dim1, dim2)
EMBER_DEFINE_METHOD(Permute, PermuteImpl, (std::vector<int64_t> axes), std::move(axes))
EMBER_DEFINE_METHOD(Slice, SliceImpl, (std::vector<ember::Slice> ranges), std::move(ranges))
EMBER_DEFINE_METHOD(Expand, ExpandImpl, (std::vector<int64_t> shape), std::move(shape))
EMBER_DEFINE_METHOD(Gather, GatherImpl, (int64_t dim, Tensor indices), dim, std::move(indices))
EMBER_DEFINE_METHOD(Select, SelectImpl, (int64_t dim, Tensor indices), dim, std::move(indices))

Tensor Cat(std::vector<Tensor> tensors, int64_t dim) {
  const char* op = "Cat";
  if (tensors.empty()) checks::Fail(op, "no tensors; expected at least one");
  checks::RequireDefined(op, tensors[0], "tensor 0");
  auto s = LiveServer(tensors[0], op);
  const Tensor& first = tensors[0];
  const int64_t d = checks::NormalizeDim(op, dim, first);
  Dims shape = first.Shape();
  shape[static_cast<size_t>(d)] = 0;
  for (size_t k = 0; k < tensors.size(); ++k) {
    const Tensor& t = tensors[k];
    checks::RequireDefined(op, t, fmt::format("tensor {}", k));
    checks::RequireSameDevice(op, first, t);
    checks::RequireSameDtype(op, first, t);
    bool ok = t.Shape().size() == first.Shape().size();
    for (size_t i = 0; ok && i < shape.size(); ++i) {
      if (static_cast<int64_t>(i) != d && t.Shape()[i] != first.Shape()[i]) ok = false;
    }
    if (!ok) {
      checks::Fail(op, fmt::format("tensor {} is {} but tensor 0 is {}; expected equal dims "
                                   "outside dim {}",
                                   k, checks::Describe(t), checks::Describe(first), d));
    }
    shape[static_cast<size_t>(d)] += t.Shape()[static_cast<size_t>(d)];
    // Checked as the sum grows, so that it cannot overflow either.
    checks::RequireResultFits(op, shape,
                              fmt::format("{} tensors ({}, ...) along dim {}", tensors.size(),
                                          checks::Describe(first), d));
  }
  TensorIr out = NewOutputIr(std::move(shape), first.Dtype());
  std::vector<TensorIr> inputs;
  std::vector<Tensor*> operands;
  for (Tensor& t : tensors) {
    inputs.push_back(IntoIr(t));
    operands.push_back(&t);
  }
  return Emit(s, ir::Cat(std::move(inputs), d, std::move(out)), operands);
}

}  // namespace ember
