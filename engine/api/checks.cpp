#include "engine/api/checks.h"

#include <cmath>
#include <cstdint>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/api/tensor_node.h"

namespace ember::checks {

std::string DescribeShape(const std::vector<int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ","));
}

std::string Describe(const Tensor& t) {
  if (!t.defined()) return "<empty tensor>";
  return DescribeShape(t.node()->shape) + " " + std::string(DTypeName(t.node()->dtype));
}

void Fail(const char* op, const std::string& what, ErrorKind kind) {
  throw Error(fmt::format("ember: {}: {}", op, what), kind);
}

void RequireDefined(const char* op, const Tensor& t, std::string_view role) {
  if (!t.defined()) Fail(op, fmt::format("{} is empty (default-constructed or moved from)", role));
  detail::LiveServer(t, op);
}

void RequireSameDevice(const char* op, const Tensor& a, const Tensor& b) {
  if (a.node()->device == b.node()->device && a.node()->server.lock() != b.node()->server.lock()) {
    Fail(op,
         fmt::format("{} and {} belong to different engines of device {}: one of them was "
                     "created before ReleaseDevice",
                     Describe(a), Describe(b), a.node()->device.ToString()),
         ErrorKind::kRuntime);
  }
  if (!(a.node()->device == b.node()->device)) {
    Fail(op, fmt::format("operands live on different devices: {} on {} and {} on {}; expected "
                         "one device",
                         Describe(a), a.node()->device.ToString(), Describe(b),
                         b.node()->device.ToString()));
  }
}

void RequireSameDtype(const char* op, const Tensor& a, const Tensor& b) {
  if (a.node()->dtype != b.node()->dtype) {
    Fail(op,
         fmt::format("dtype mismatch: {} and {}; expected the same dtype (use Cast)", Describe(a),
                     Describe(b)),
         ErrorKind::kWrongDtype);
  }
}

void RequireFloat(const char* op, const Tensor& t) {
  if (!IsFloat(t.node()->dtype)) {
    Fail(op, fmt::format("got {}; expected a float tensor (f32, f16 or bf16)", Describe(t)),
         ErrorKind::kWrongDtype);
  }
}

void RequireNumeric(const char* op, const Tensor& t) {
  if (t.node()->dtype == DType::kBool) {
    Fail(op,
         fmt::format("got {}; expected a float or int tensor (Cast bool tensors first)",
                     Describe(t)),
         ErrorKind::kWrongDtype);
  }
}

void RequireInt(const char* op, const Tensor& t) {
  if (!IsInt(t.node()->dtype)) {
    Fail(op, fmt::format("got {}; expected an int tensor (i32 or i64)", Describe(t)),
         ErrorKind::kWrongDtype);
  }
}

void RequireIntIndices(const char* op, const Tensor& indices) {
  if (!IsInt(indices.node()->dtype)) {
    Fail(op, fmt::format("indices are {}; expected an i32 or i64 tensor", Describe(indices)),
         ErrorKind::kWrongDtype);
  }
}

void RequireBoolMask(const char* op, const Tensor& mask) {
  if (mask.node()->dtype != DType::kBool) {
    Fail(op, fmt::format("mask is {}; expected a bool tensor", Describe(mask)),
         ErrorKind::kWrongDtype);
  }
}

void RequireValidShape(const char* op, const std::vector<int64_t>& shape) {
  int64_t elements = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 1) {
      Fail(op, fmt::format("shape {} has dim {} = {}; expected every dim >= 1",
                           DescribeShape(shape), i, shape[i]));
    }
    if (shape[i] > kMaxElements / elements) {
      Fail(op, fmt::format("shape {} has more than {} elements; expected a tensor that fits in "
                           "memory",
                           DescribeShape(shape), kMaxElements));
    }
    elements *= shape[i];
  }
}

void RequireResultFits(const char* op, const std::vector<int64_t>& shape,
                       const std::string& operands) {
  int64_t elements = 1;
  for (const int64_t dim : shape) {
    if (dim > kMaxElements / elements) {
      Fail(op, fmt::format("{}: the result {} would have more than {} elements; expected a "
                           "tensor that fits in memory",
                           operands, DescribeShape(shape), kMaxElements));
    }
    elements *= dim;
  }
}

bool IsKnownDtype(DType dtype) { return static_cast<int>(dtype) < kNumDTypes; }

void RequireKnownDtype(const char* op, DType dtype) {
  if (!IsKnownDtype(dtype)) {
    Fail(op,
         fmt::format("dtype {} is not an ember dtype; expected f32, f16, bf16, i32, i64 or "
                     "bool",
                     static_cast<int>(dtype)),
         ErrorKind::kWrongDtype);
  }
}

Dims Broadcast(const char* op, const Dims& a, const Dims& b, std::string_view context) {
  const std::string prefix = context.empty() ? "" : fmt::format("{}: ", context);
  const size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      Fail(op, fmt::format("{}shapes {} and {} do not broadcast: dim {} of the result would be "
                           "{} and {}; expected equal sizes or 1",
                           prefix, DescribeShape(a), DescribeShape(b), i, da, db));
    }
    out[i] = da == 1 ? db : da;
  }
  RequireResultFits(op, out,
                    fmt::format("{}shapes {} and {}", prefix, DescribeShape(a), DescribeShape(b)));
  return out;
}

int64_t NormalizeDim(const char* op, int64_t dim, const Tensor& t) {
  const auto r = static_cast<int64_t>(t.node()->shape.size());
  if (dim < -r || dim >= r) {
    Fail(op, fmt::format("dim {} is out of range for {} (rank {}); expected a dim in [{}, {})", dim,
                         Describe(t), r, -r, r));
  }
  return dim < 0 ? dim + r : dim;
}

ScalarIr ScalarFor(const char* op, double value, DType dtype) {
  if (IsFloat(dtype)) return ScalarIr::Float(value);
  if (dtype == DType::kBool) {
    if (value != 0.0 && value != 1.0) {
      Fail(op, fmt::format("scalar {} on a bool tensor; expected 0 or 1", value));
    }
    return ScalarIr::Bool(value != 0.0);
  }
  if (!std::isfinite(value) || std::trunc(value) != value) {
    Fail(op,
         fmt::format("scalar {} on a {} tensor; expected a whole number (Cast the tensor "
                     "to a float dtype for fractional scalars)",
                     value, DTypeName(dtype)),
         ErrorKind::kWrongDtype);
  }
  if (std::fabs(value) > 9.0e18) {
    Fail(op, fmt::format("scalar {} on a {} tensor is outside the range of an int scalar; "
                         "expected |value| <= 9e18",
                         value, DTypeName(dtype)));
  }
  return ScalarIr::Int(static_cast<int64_t>(value));
}

namespace {

// A scalar `value` (a double or an int64_t) on a tensor of `dtype`: refused on an i32 tensor
// when it does not fit i32.
template <typename T>
void RequireFitsI32(const char* op, T value, DType dtype) {
  if (dtype == DType::kI32 && (value < INT32_MIN || value > INT32_MAX)) {
    Fail(op, fmt::format("scalar {} on a i32 tensor is outside the i32 range [{}, {}]; expected "
                         "a value that fits (or an i64 tensor)",
                         value, INT32_MIN, INT32_MAX));
  }
}

}  // namespace

ScalarIr StoredScalarFor(const char* op, double value, DType dtype) {
  const ScalarIr scalar = ScalarFor(op, value, dtype);
  RequireFitsI32(op, value, dtype);
  return scalar;
}

ScalarIr IntScalarFor(const char* op, int64_t value, DType dtype) {
  RequireFitsI32(op, value, dtype);
  return ScalarIr::Int(value);
}

}  // namespace ember::checks
