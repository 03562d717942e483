// ember::Tensor: a lazy tensor. Part of the public API.
//
// Every op on a Tensor is queued on the calling thread's stream of the tensor's device and
// runs later, fused with its neighbours when that pays (burn's model). Reading values back
// (ToVector) or ember::Sync(device) drains the calling thread's stream.
//
// Ownership decides liveness, as in burn: a Tensor is a shared reference (copies are cheap and
// share the data). When an op receives the *only* reference to an input (a temporary, or a
// std::move'd tensor) the input is marked ReadWrite, its last use, and the op may reuse its
// memory; otherwise the input is ReadOnly. When the last reference to a tensor goes away
// without such a last use, a Drop op is queued. So `(a * b).Exp()` frees `a * b` inside the
// Exp, while `auto c = a * b; auto d = c.Exp();` keeps `c` alive.
//
// Threads: tensors may be passed between threads; a tensor used on another thread than the one
// that created it is shared as a view (the creating thread's pending ops run first if needed).
//
// Errors: a wrong shape, dtype, axis or device throws ember::Error naming the op, the operands
// and what was expected, and queues nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <ember/device.h>
#include <ember/dtype.h>
#include <ember/error.h>
#include <ember/slice.h>

namespace ember {

namespace detail {
struct TensorNode;
}  // namespace detail

class Tensor {
 public:
  // An empty tensor: any op on it throws ember::Error.
  Tensor() = default;
  // A copy shares the data. A copy made on another thread than the tensor's home thread is a
  // shared view living on the copying thread (burn's clone): using it there never touches the
  // home thread's pending ops (see "Threads" in docs/API.md).
  Tensor(const Tensor& other);
  Tensor& operator=(const Tensor& other);
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(Tensor&&) noexcept = default;
  ~Tensor() = default;

  // --- Creation ---------------------------------------------------------------------------
  // T is float (f32), int32_t (i32), int64_t (i64) or bool (bool). values.size() must equal
  // the product of `shape` (1 for a rank-0 shape).
  template <typename T>
  static Tensor FromVector(std::vector<T> values, std::vector<int64_t> shape,
                           Device device = Device::Cpu());
  // Converts float values to `dtype` (any dtype; f16 and bf16 round to nearest even).
  static Tensor FromVector(const std::vector<float>& values, std::vector<int64_t> shape,
                           DType dtype, Device device = Device::Cpu());
  static Tensor Zeros(std::vector<int64_t> shape, DType dtype, Device device = Device::Cpu());
  static Tensor Ones(std::vector<int64_t> shape, DType dtype, Device device = Device::Cpu());
  static Tensor Full(std::vector<int64_t> shape, double value, DType dtype,
                     Device device = Device::Cpu());
  // Row-major elements of `dtype` as they are stored (f16/bf16 as their 16 bits, bool as one
  // byte 0 or 1), copied once to the device: the import path of NumPy arrays and DLPack.
  // REQUIRES: bytes.size() == product(shape) * DTypeSize(dtype) (else ember::Error).
  static Tensor FromBytes(std::span<const std::byte> bytes, std::vector<int64_t> shape, DType dtype,
                          Device device = Device::Cpu());
  // Float dtypes only.
  static Tensor RandomUniform(std::vector<int64_t> shape, DType dtype,
                              Device device = Device::Cpu(), double lo = 0.0, double hi = 1.0);
  static Tensor RandomNormal(std::vector<int64_t> shape, DType dtype, Device device = Device::Cpu(),
                             double mean = 0.0, double std = 1.0);

  // --- Inspection (no sync) ---------------------------------------------------------------
  const std::vector<int64_t>& Shape() const;
  DType Dtype() const;
  ember::Device device() const;
  int64_t NumElements() const;
  bool defined() const { return node_ != nullptr; }

  // --- Reading back (a sync point for the calling thread's stream) ------------------------
  // T: float or double for float dtypes, int32_t or int64_t for int dtypes, bool for bool.
  // The rvalue form consumes the tensor: `(a * b).ToVector<float>()` frees it as it is read.
  template <typename T>
  std::vector<T> ToVector() const&;
  template <typename T>
  std::vector<T> ToVector() &&;

  // --- Elementwise ------------------------------------------------------------------------
  // Each method has an lvalue form (the input stays alive: ReadOnly) and an rvalue form (the
  // input may be consumed: ReadWrite when it holds the only reference).
#define EMBER_TENSOR_UNARY(Name) \
  Tensor Name() const&;          \
  Tensor Name()&&;
  EMBER_TENSOR_UNARY(Exp)
  EMBER_TENSOR_UNARY(Log)
  EMBER_TENSOR_UNARY(Log1p)
  EMBER_TENSOR_UNARY(Sqrt)
  EMBER_TENSOR_UNARY(Abs)
  EMBER_TENSOR_UNARY(Neg)
  EMBER_TENSOR_UNARY(Recip)
  EMBER_TENSOR_UNARY(Sin)
  EMBER_TENSOR_UNARY(Cos)
  EMBER_TENSOR_UNARY(Tanh)
  EMBER_TENSOR_UNARY(Erf)
  // Int tensors only: ~x (docs/API.md, "Bitwise").
  EMBER_TENSOR_UNARY(BitwiseNot)
  // Sum and mean of all elements, as a tensor of shape [1].
  EMBER_TENSOR_UNARY(Sum)
  EMBER_TENSOR_UNARY(Mean)
#undef EMBER_TENSOR_UNARY

#define EMBER_TENSOR_WITH(Name, ...) \
  Tensor Name(__VA_ARGS__) const&;   \
  Tensor Name(__VA_ARGS__)&&;
  // Float tensors: elementwise power, broadcasting.
  EMBER_TENSOR_WITH(Powf, Tensor exponent)
  EMBER_TENSOR_WITH(Powf, double exponent)
  EMBER_TENSOR_WITH(Clamp, double lo, double hi)
  // Comparisons give bool tensors; tensor operands broadcast.
  EMBER_TENSOR_WITH(Equal, Tensor other)
  EMBER_TENSOR_WITH(Equal, double other)
  EMBER_TENSOR_WITH(Lower, Tensor other)
  EMBER_TENSOR_WITH(Lower, double other)
  EMBER_TENSOR_WITH(Greater, Tensor other)
  EMBER_TENSOR_WITH(Greater, double other)
  EMBER_TENSOR_WITH(LowerEqual, Tensor other)
  EMBER_TENSOR_WITH(LowerEqual, double other)
  EMBER_TENSOR_WITH(GreaterEqual, Tensor other)
  EMBER_TENSOR_WITH(GreaterEqual, double other)
  // Where `mask` (bool) is true take `value` (tensor, same dtype) or `v`; else this tensor.
  EMBER_TENSOR_WITH(MaskWhere, Tensor mask, Tensor value)
  EMBER_TENSOR_WITH(MaskFill, Tensor mask, double v)
  EMBER_TENSOR_WITH(Cast, DType dtype)
  // Remainder with the sign of the divisor (Python's %, burn's remainder).
  EMBER_TENSOR_WITH(Rem, Tensor other)
  EMBER_TENSOR_WITH(Rem, double other)
  // Int tensors (i32, i64) only, like burn's IntOperationIr bitwise ops. A tensor operand
  // broadcasts and shares the dtype; a scalar is an exact int64_t (on an i32 tensor it must fit
  // i32). Right shifts are arithmetic; an amount outside [0, 64) gives 0 (left) or the sign
  // fill (right), as NumPy's left_shift and right_shift do (docs/API.md, "Bitwise").
  EMBER_TENSOR_WITH(BitwiseAnd, Tensor other)
  EMBER_TENSOR_WITH(BitwiseAnd, int64_t other)
  EMBER_TENSOR_WITH(BitwiseOr, Tensor other)
  EMBER_TENSOR_WITH(BitwiseOr, int64_t other)
  EMBER_TENSOR_WITH(BitwiseXor, Tensor other)
  EMBER_TENSOR_WITH(BitwiseXor, int64_t other)
  EMBER_TENSOR_WITH(BitwiseLeftShift, Tensor amount)
  EMBER_TENSOR_WITH(BitwiseLeftShift, int64_t amount)
  EMBER_TENSOR_WITH(BitwiseRightShift, Tensor amount)
  EMBER_TENSOR_WITH(BitwiseRightShift, int64_t amount)

  // --- Shape and data movement ------------------------------------------------------------
  // One dim may be -1 (inferred).
  EMBER_TENSOR_WITH(Reshape, std::vector<int64_t> shape)
  // Negative dims count from the end, here and below.
  EMBER_TENSOR_WITH(SwapDims, int64_t dim1, int64_t dim2)
  EMBER_TENSOR_WITH(Permute, std::vector<int64_t> axes)
  // One Slice per leading dim; dims not named are taken whole.
  EMBER_TENSOR_WITH(Slice, std::vector<ember::Slice> ranges)
  // Broadcast to `shape` (dims of size 1 grow; new leading dims may be added).
  EMBER_TENSOR_WITH(Expand, std::vector<int64_t> shape)
  // out[..i..] = this[..indices[..i..]..] along `dim`; indices are i32/i64, same rank.
  EMBER_TENSOR_WITH(Gather, int64_t dim, Tensor indices)
  // Takes the entries listed by the 1-D int tensor `indices` along `dim`.
  EMBER_TENSOR_WITH(Select, int64_t dim, Tensor indices)

  // --- Reductions (the reduced dim is kept with size 1) -----------------------------------
  EMBER_TENSOR_WITH(SumDim, int64_t dim)
  EMBER_TENSOR_WITH(MeanDim, int64_t dim)
  EMBER_TENSOR_WITH(ProdDim, int64_t dim)
  EMBER_TENSOR_WITH(MaxDim, int64_t dim)
  EMBER_TENSOR_WITH(MinDim, int64_t dim)
  // i64 indices of the first maximum / minimum.
  EMBER_TENSOR_WITH(ArgMax, int64_t dim)
  EMBER_TENSOR_WITH(ArgMin, int64_t dim)

  // --- Matmul -----------------------------------------------------------------------------
  // [..., m, k] x [..., k, n] -> [..., m, n]; batch dims broadcast; rank >= 2 on both sides.
  EMBER_TENSOR_WITH(Matmul, Tensor other)
#undef EMBER_TENSOR_WITH

  // The engine's node (internal; used by the engine and its tests).
  const std::shared_ptr<detail::TensorNode>& node() const { return node_; }
  explicit Tensor(std::shared_ptr<detail::TensorNode> node) : node_(std::move(node)) {}

 private:
  std::shared_ptr<detail::TensorNode> node_;
};

// Arithmetic between tensors (broadcasting, same dtype) and with scalars on either side.
// Operands are taken by value: pass a temporary or std::move to let the op consume it.
Tensor operator+(Tensor lhs, Tensor rhs);
Tensor operator-(Tensor lhs, Tensor rhs);
Tensor operator*(Tensor lhs, Tensor rhs);
Tensor operator/(Tensor lhs, Tensor rhs);
Tensor operator+(Tensor lhs, double rhs);
Tensor operator-(Tensor lhs, double rhs);
Tensor operator*(Tensor lhs, double rhs);
Tensor operator/(Tensor lhs, double rhs);
Tensor operator+(double lhs, Tensor rhs);
Tensor operator-(double lhs, Tensor rhs);
Tensor operator*(double lhs, Tensor rhs);
Tensor operator/(double lhs, Tensor rhs);
Tensor operator-(Tensor x);

// Concatenates along `dim`; all tensors share dtype, device and every other dim.
Tensor Cat(std::vector<Tensor> tensors, int64_t dim);

// Runs everything the calling thread has queued on `device` and waits for it. With a plan
// database in a file, the plans found so far are then in the file too; on a PostgreSQL server
// they are on their way (a sync waits for no server: FlushPlans does).
void Sync(Device device = Device::Cpu());

// Sync, then waits until everything the device's engine found so far — plans, triggers,
// kernels, exploration and hit counts — is written to its plan database: before a checkpoint,
// or when other hosts must find the plans now. Returns at once without a plan database; with a
// server out of reach, once the writer holds the writes (they go when it is back).
void FlushPlans(Device device = Device::Cpu());

// Reseeds the random generator of `device`. The calling thread's pending ops run first, so
// Random ops queued before the call use the old seed and those queued after it the new one.
// Random values are deterministic for a seed and one thread's program; several threads
// drawing on one device share its generator in the order their streams execute.
void Seed(Device device, uint64_t seed);

// Releases the device's engine state and memory; work still queued on it is discarded.
// Tensors that still refer to it throw ember::Error when used afterwards ("device ... has been
// released"); a later op on the device starts a fresh engine.
void ReleaseDevice(Device device);

}  // namespace ember
