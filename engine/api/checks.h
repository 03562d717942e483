// Argument checks of the public Tensor API. Each throws ember::Error with a message that names
// the op, describes the operands ("[2,3] f32") and says what was expected. They run before
// anything is queued, so a rejected call leaves the stream untouched.
#pragma once

#include <ember/error.h>

#include <string>
#include <string_view>
#include <vector>

#include <ember/tensor.h>

#include "engine/ir/scalar_ir.h"
#include "engine/ir/tensor_ir.h"

namespace ember::checks {

// "[2,3] f32".
std::string Describe(const Tensor& t);
std::string DescribeShape(const std::vector<int64_t>& shape);

// Throws ember::Error "ember: <op>: <what>" of `kind` (an argument the call cannot take, unless
// said otherwise).
[[noreturn]] void Fail(const char* op, const std::string& what,
                       ErrorKind kind = ErrorKind::kInvalidArgument);

// The tensor is defined, its device is live and (for several operands) they share a device.
// `role` names the operand in the message when it is empty ("the mask is empty").
void RequireDefined(const char* op, const Tensor& t, std::string_view role = "the tensor");
void RequireSameDevice(const char* op, const Tensor& a, const Tensor& b);
void RequireSameDtype(const char* op, const Tensor& a, const Tensor& b);
void RequireFloat(const char* op, const Tensor& t);
void RequireNumeric(const char* op, const Tensor& t);  // float or int, not bool
void RequireInt(const char* op, const Tensor& t);      // i32 or i64
void RequireIntIndices(const char* op, const Tensor& indices);
void RequireBoolMask(const char* op, const Tensor& mask);
// The most elements one tensor may have (2^40): larger shapes are rejected at the API instead
// of failing to allocate, or overflowing, later.
inline constexpr int64_t kMaxElements = int64_t{1} << 40;

// Every dim >= 1 (ember has no empty tensors) and at most kMaxElements elements.
void RequireValidShape(const char* op, const std::vector<int64_t>& shape);
// The result shape of an op has at most kMaxElements elements: a result of valid operands can
// still be too large (a broadcast, a matmul, a select, a cat), and would fail to allocate only
// when it runs. `operands` describes them for the message ("shapes [2,1] and [1,3]").
// REQUIRES: every dim of `shape` >= 1.
void RequireResultFits(const char* op, const std::vector<int64_t>& shape,
                       const std::string& operands);
// `dtype` is one of the DType enumerators: a value cast from an int may be none of them, and
// would reach the kernels (which abort on it) or size buffers with DTypeSize 0.
bool IsKnownDtype(DType dtype);
void RequireKnownDtype(const char* op, DType dtype);

// Numpy broadcasting of two shapes (aligned on the right; 1 stretches); the result must fit
// (RequireResultFits). `context`, when given, starts the message ("batch dims of ...").
Dims Broadcast(const char* op, const Dims& a, const Dims& b, std::string_view context = {});
// `dim` of the tensor `t`, in [-rank, rank), normalized to [0, rank).
int64_t NormalizeDim(const char* op, int64_t dim, const Tensor& t);
// The scalar as the ScalarIr an op on `dtype` carries: Float for float dtypes, Int (must be a
// whole number in range) for int dtypes, Bool (0 or 1) for bool.
ScalarIr ScalarFor(const char* op, double value, DType dtype);
// ScalarFor for a scalar stored in the result as it is (Full, MaskFill): an int scalar must
// also fit the dtype, since i64 -> i32 wraps (Note [CPU compute domains]) and 3e9 would be
// stored as -1294967296. Arithmetic and comparisons compute in i64 and keep ScalarFor.
ScalarIr StoredScalarFor(const char* op, double value, DType dtype);
// An int64_t scalar (exact past 2^53, as a double is not) for an op on the int `dtype`; on an
// i32 tensor it must fit i32, as StoredScalarFor asks (NumPy 2 refuses a Python int past the
// dtype too). REQUIRES: IsInt(dtype).
ScalarIr IntScalarFor(const char* op, int64_t value, DType dtype);

}  // namespace ember::checks
