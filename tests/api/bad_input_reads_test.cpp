// Bad input when a tensor is read (its metadata or its values: empty and released tensors) and
// when a device is named (bad_input.h).
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/api/bad_input.h"

namespace ember::bad_input {
namespace {

// clang-format off
std::vector<BadCall> ReadCases() {
  const Needs kStale = Needs::kStale;
  return {
    // --- Metadata of an empty tensor -------------------------------------------------------
    {"Shape_EmptyTensor", [](O o) { (void)o.empty.Shape(); }, {"Shape", "empty"}},
    {"Dtype_EmptyTensor", [](O o) { (void)o.empty.Dtype(); }, {"Dtype", "empty"}},
    {"device_EmptyTensor", [](O o) { (void)o.empty.device(); }, {"device", "empty"}},
    {"NumElements_EmptyTensor", [](O o) { (void)o.empty.NumElements(); },
     {"NumElements", "empty"}},

    // --- Reading back ----------------------------------------------------------------------
    {"ToVector_FloatOfInt", [](O o) { (void)o.i.ToVector<float>(); },
     {"ToVector", "[2,3] i32", "float/double for float dtypes"}},
    {"ToVector_DoubleOfBool", [](O o) { (void)o.b.ToVector<double>(); },
     {"ToVector", "[2,3] bool"}},
    {"ToVector_IntOfFloat", [](O o) { (void)o.f.ToVector<int32_t>(); },
     {"ToVector", "[2,3] f32"}},
    {"ToVector_Int64OfBool", [](O o) { (void)o.b.ToVector<int64_t>(); },
     {"ToVector", "[2,3] bool"}},
    {"ToVector_BoolOfFloat", [](O o) { (void)Tensor(o.f).ToVector<bool>(); },
     {"ToVector", "[2,3] f32"}},
    {"ToVector_EmptyTensor", [](O o) { (void)o.empty.ToVector<float>(); },
     {"ToVector", "empty"}},
    {"ToVector_ReleasedDevice", [](O o) { (void)o.stale.ToVector<float>(); },
     {"ToVector", "[2,3] f32", "cpu", "released"}, kStale},

    // --- Devices ---------------------------------------------------------------------------
    {"Cuda_NegativeOrdinal", [](O) { (void)Device::Cuda(-1); }, {"Device::Cuda(-1)", ">= 0"}},
    {"Cuda_HugeOrdinal",
     [](O) { (void)Tensor::Zeros({2}, DType::kF32, Device::Cuda(1 << 30)); },
     {"Device::Cuda(1073741824)"}},
  };
}
// clang-format on

INSTANTIATE_TEST_SUITE_P(Api, BadInput, ::testing::ValuesIn(ReadCases()), BadCallName);

}  // namespace
}  // namespace ember::bad_input
