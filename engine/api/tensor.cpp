// ember::Tensor: creation, inspection and reading back.
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "engine/api/checks.h"
#include "engine/api/tensor_node.h"
#include "engine/core/check.h"
#include "engine/ir/builders.h"
#include "engine/runtime/cpu/convert.h"

namespace ember {

using detail::Emit;
using detail::IntoIr;
using detail::NewOutputIr;

namespace {

template <typename T>
constexpr DType DTypeOf() {
  if constexpr (std::is_same_v<T, float>) return DType::kF32;
  if constexpr (std::is_same_v<T, int32_t>) return DType::kI32;
  if constexpr (std::is_same_v<T, int64_t>) return DType::kI64;
  if constexpr (std::is_same_v<T, bool>) return DType::kBool;
}

void CheckCount(const char* op, size_t count, const std::vector<int64_t>& shape) {
  checks::RequireValidShape(op, shape);
  const int64_t n = NumElements(shape);
  if (static_cast<int64_t>(count) != n) {
    checks::Fail(op, fmt::format("{} values for shape {}; expected {}", count,
                                 checks::DescribeShape(shape), n));
  }
}

Tensor Upload(std::span<const std::byte> bytes, std::vector<int64_t> shape, DType dtype,
              Device device) {
  std::shared_ptr<DeviceServer> s = ServerFor(device);
  const TensorIr out = NewOutputIr(std::move(shape), dtype);
  detail::DrainOnThreadExit(s);
  s->RegisterInit(CurrentStreamId(), ir::Init(out), bytes);
  return detail::Publish(s, out);
}

Tensor Create(const char* op, std::vector<int64_t> shape, DType dtype, Device device,
              const std::function<OperationIr(TensorIr)>& build) {
  checks::RequireKnownDtype(op, dtype);
  checks::RequireValidShape(op, shape);
  std::shared_ptr<DeviceServer> s = ServerFor(device);
  return Emit(s, build(NewOutputIr(std::move(shape), dtype)), {});
}

}  // namespace

template <typename T>
Tensor Tensor::FromVector(std::vector<T> values, std::vector<int64_t> shape, ember::Device device) {
  CheckCount("FromVector", values.size(), shape);
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<std::byte> bytes(values.size());
    for (size_t i = 0; i < values.size(); ++i)
      bytes[i] = std::byte{values[i] ? uint8_t{1} : uint8_t{0}};
    return Upload(bytes, std::move(shape), DType::kBool, device);
  } else {
    return Upload(std::as_bytes(std::span<const T>(values)), std::move(shape), DTypeOf<T>(),
                  device);
  }
}

template Tensor Tensor::FromVector<float>(std::vector<float>, std::vector<int64_t>, ember::Device);
template Tensor Tensor::FromVector<int32_t>(std::vector<int32_t>, std::vector<int64_t>,
                                            ember::Device);
template Tensor Tensor::FromVector<int64_t>(std::vector<int64_t>, std::vector<int64_t>,
                                            ember::Device);
template Tensor Tensor::FromVector<bool>(std::vector<bool>, std::vector<int64_t>, ember::Device);

Tensor Tensor::FromVector(const std::vector<float>& values, std::vector<int64_t> shape, DType dtype,
                          ember::Device device) {
  checks::RequireKnownDtype("FromVector", dtype);
  CheckCount("FromVector", values.size(), shape);
  // The store rules of every kernel (Note [CPU compute domains]): f16/bf16 round to nearest
  // even, ints truncate and saturate (NaN -> 0), bool is `!= 0`.
  std::vector<std::byte> bytes(values.size() * static_cast<size_t>(DTypeSize(dtype)));
  cpu::StoreRunF32(values.data(), static_cast<int64_t>(values.size()), dtype, bytes.data());
  return Upload(bytes, std::move(shape), dtype, device);
}

Tensor Tensor::FromBytes(std::span<const std::byte> bytes, std::vector<int64_t> shape, DType dtype,
                         ember::Device device) {
  checks::RequireKnownDtype("FromBytes", dtype);
  checks::RequireValidShape("FromBytes", shape);
  const int64_t n = ember::NumElements(shape);
  if (bytes.size() != static_cast<size_t>(n) * static_cast<size_t>(DTypeSize(dtype))) {
    checks::Fail("FromBytes",
                 fmt::format("{} bytes for shape {} of {}; expected {}", bytes.size(),
                             checks::DescribeShape(shape), DTypeName(dtype), n * DTypeSize(dtype)));
  }
  // The kernels read a bool byte as 0 or 1; any other byte would give results that depend on
  // the kernel (a sum counts it as 2, a mask takes it as true).
  if (dtype == DType::kBool) {
    for (std::byte b : bytes) {
      if (b != std::byte{0} && b != std::byte{1}) {
        checks::Fail("FromBytes", "a bool byte is neither 0 nor 1; expected 0 or 1");
      }
    }
  }
  return Upload(bytes, std::move(shape), dtype, device);
}

Tensor Tensor::Zeros(std::vector<int64_t> shape, DType dtype, ember::Device device) {
  return Create("Zeros", std::move(shape), dtype, device,
                [](TensorIr out) { return ir::Creation(OpKind::kZeros, std::move(out)); });
}

Tensor Tensor::Ones(std::vector<int64_t> shape, DType dtype, ember::Device device) {
  return Create("Ones", std::move(shape), dtype, device,
                [](TensorIr out) { return ir::Creation(OpKind::kOnes, std::move(out)); });
}

Tensor Tensor::Full(std::vector<int64_t> shape, double value, DType dtype, ember::Device device) {
  checks::RequireKnownDtype("Full", dtype);
  const ScalarIr scalar = checks::StoredScalarFor("Full", value, dtype);
  return Create("Full", std::move(shape), dtype, device,
                [&](TensorIr out) { return ir::Full(std::move(out), scalar); });
}

namespace {

Tensor MakeRandom(const char* op, std::vector<int64_t> shape, DType dtype, Device device,
                  Distribution dist) {
  checks::RequireKnownDtype(op, dtype);
  if (!IsFloat(dtype)) {
    checks::Fail(
        op, fmt::format("dtype {}; expected a float dtype (f32, f16 or bf16)", DTypeName(dtype)),
        ErrorKind::kWrongDtype);
  }
  return Create(op, std::move(shape), dtype, device,
                [&](TensorIr out) { return ir::Random(std::move(out), dist); });
}

}  // namespace

Tensor Tensor::RandomUniform(std::vector<int64_t> shape, DType dtype, ember::Device device,
                             double lo, double hi) {
  // Infinite bounds, or a range wider than a double (hi - lo = inf), would draw inf and NaN.
  if (!(lo < hi) || !std::isfinite(hi - lo)) {
    checks::Fail("RandomUniform", fmt::format("bounds [{}, {}); expected finite bounds with lo "
                                              "< hi (and hi - lo finite)",
                                              lo, hi));
  }
  return MakeRandom("RandomUniform", std::move(shape), dtype, device,
                    Distribution{Distribution::Kind::kUniform, lo, hi});
}

Tensor Tensor::RandomNormal(std::vector<int64_t> shape, DType dtype, ember::Device device,
                            double mean, double std) {
  // An infinite std would draw inf and NaN (Box-Muller multiplies it by a value near 0).
  if (!(std >= 0.0) || !std::isfinite(std) || !std::isfinite(mean)) {
    checks::Fail("RandomNormal", fmt::format("mean {}, std {}; expected a finite mean and a "
                                             "finite std >= 0",
                                             mean, std));
  }
  return MakeRandom("RandomNormal", std::move(shape), dtype, device,
                    Distribution{Distribution::Kind::kNormal, mean, std});
}

const std::vector<int64_t>& Tensor::Shape() const {
  if (!defined()) checks::Fail("Shape", "the tensor is empty (default-constructed or moved from)");
  return node_->shape;
}

DType Tensor::Dtype() const {
  if (!defined()) checks::Fail("Dtype", "the tensor is empty (default-constructed or moved from)");
  return node_->dtype;
}

ember::Device Tensor::device() const {
  if (!defined()) checks::Fail("device", "the tensor is empty (default-constructed or moved from)");
  return node_->device;
}

int64_t Tensor::NumElements() const {
  if (!defined()) {
    checks::Fail("NumElements", "the tensor is empty (default-constructed or moved from)");
  }
  return ember::NumElements(node_->shape);
}

Tensor::Tensor(const Tensor& other) : node_(other.node_) {
  // burn's clone: a copy made on another thread is a shared view living on that thread. A
  // tensor of a released device stays a plain reference (any use of it throws).
  if (node_ && node_->stream != CurrentStreamId() && !node_->server.expired()) {
    *this = detail::SharedView(other);
  }
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this != &other) *this = Tensor(other);
  return *this;
}

namespace {

// Reads `t` (taken by value: a ReadWrite read when it held the only reference) as T.
template <typename T>
std::vector<T> ReadBack(Tensor t) {
  std::shared_ptr<DeviceServer> s = detail::LiveServer(t, "ToVector");
  const DType dtype = t.Dtype();
  bool ok = false;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) ok = IsFloat(dtype);
  if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) ok = IsInt(dtype);
  if constexpr (std::is_same_v<T, bool>) ok = dtype == DType::kBool;
  if (!ok) {
    checks::Fail("ToVector",
                 fmt::format("cannot read a {} tensor as this element type; use "
                             "float/double for float dtypes, int32_t/int64_t for "
                             "int dtypes, bool for bool (or Cast first)",
                             checks::Describe(t)),
                 ErrorKind::kWrongDtype);
  }
  const TensorIr ir = IntoIr(t);
  const std::vector<std::byte> bytes = s->Read(CurrentStreamId(), ir);
  if (ir.status == TensorStatus::kReadWrite) t.node()->consumed.store(true);
  const size_t n = static_cast<size_t>(ember::NumElements(ir.shape));
  EMBER_CHECK(bytes.size() == n * static_cast<size_t>(DTypeSize(dtype)), "t{}: read {} bytes",
              ir.id, bytes.size());
  // The kernels' loads (Note [CPU compute domains]): float dtypes widen to f32 exactly, ints
  // and bool to i64.
  std::vector<T> out(n);
  if (IsFloat(dtype)) {
    std::vector<float> values(n);
    cpu::LoadRunF32(bytes.data(), dtype, 1, static_cast<int64_t>(n), values.data());
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<T>(values[i]);
  } else {
    std::vector<int64_t> values(n);
    cpu::LoadRunI64(bytes.data(), dtype, 1, static_cast<int64_t>(n), values.data());
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<T>(values[i]);
  }
  return out;
}

}  // namespace

template <typename T>
std::vector<T> Tensor::ToVector() const& {
  return ReadBack<T>(*this);
}

template <typename T>
std::vector<T> Tensor::ToVector() && {
  return ReadBack<T>(std::move(*this));
}

#define EMBER_INSTANTIATE_TO_VECTOR(T)                  \
  template std::vector<T> Tensor::ToVector<T>() const&; \
  template std::vector<T> Tensor::ToVector<T>()&&;
EMBER_INSTANTIATE_TO_VECTOR(float)
EMBER_INSTANTIATE_TO_VECTOR(double)
EMBER_INSTANTIATE_TO_VECTOR(int32_t)
EMBER_INSTANTIATE_TO_VECTOR(int64_t)
EMBER_INSTANTIATE_TO_VECTOR(bool)
#undef EMBER_INSTANTIATE_TO_VECTOR

}  // namespace ember
