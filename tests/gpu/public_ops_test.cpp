// Every public op of ember::Tensor (engine/api/include/ember/tensor.h) on Device::Cuda(0)
// against Device::Cpu(), the oracle, with fusion off on both (each op is its own kernel): the
// same host inputs (HostData, drawn with std::mt19937 from the seed printed at the start),
// compared under Note [GPU tolerances] (gpu_test_util.h). Cases that only move or convert
// values (creation, casts, views, gathers, comparisons on host data, min/max/arg reductions,
// integer math, uniform random numbers) must agree exactly.
//
// The semantics pinned here are the CPU backend's (tests/api/values_test.cpp,
// tests/runtime/cpu/cpu_*_test.cpp, docs/API.md): float -> int truncates, saturates and maps NaN to
// 0; i64 -> i32 wraps; Rem takes the divisor's sign; integer division and remainder by zero
// give 0; NaN propagates through MaxDim/MinDim; an out-of-range index (negative ones too)
// gathers 0; Random ops give the same values for the same seed on every device.
//
// The cases, one file per family of ops: public_ops_creation_cases.h,
// public_ops_elementwise_cases.h, public_ops_view_cases.h, public_ops_reduce_matmul_cases.h (the
// case type: public_ops_case.h).
//
// Until the CUDA backend exists every case skips, saying why (Device::Cuda(0)'s message).
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "tests/gpu/gpu_test_util.h"
#include "tests/gpu/public_ops_case.h"
#include "tests/gpu/public_ops_creation_cases.h"
#include "tests/gpu/public_ops_elementwise_cases.h"
#include "tests/gpu/public_ops_reduce_matmul_cases.h"
#include "tests/gpu/public_ops_view_cases.h"

namespace ember::gpu::public_ops {
namespace {

std::vector<OpCase> AllCases() {
  std::vector<OpCase> cases;
  AddCreation(cases);
  AddRandom(cases);
  AddUnary(cases);
  AddSpecialValues(cases);
  AddBinary(cases);
  AddRem(cases);
  AddIntDivision(cases);
  AddComparisons(cases);
  AddMasks(cases);
  AddCasts(cases);
  AddViews(cases);
  AddIndexing(cases);
  AddReductions(cases);
  AddMatmul(cases);
  return cases;
}

// --- The test ----------------------------------------------------------------------------------

class PublicOps : public ::testing::TestWithParam<OpCase> {
 protected:
  static void SetUpTestSuite() { UseFusion(false); }
  static void TearDownTestSuite() { UseFusion(true); }
};

// Runs the case on `device`; an ember::Error (an op the backend cannot run) becomes the message.
Outputs RunOn(const OpCase& c, Device device, std::string* error) {
  HostData data(Salt(c.name));
  try {
    return c.run(device, data);
  } catch (const Error& e) {
    *error = e.what();
    return {};
  }
}

TEST_P(PublicOps, CudaMatchesCpuWithFusionOff) {
  EMBER_CUDA_OR_SKIP(cuda);
  const OpCase& c = GetParam();
  std::string cpu_error, gpu_error;
  const Outputs want = RunOn(c, Device::Cpu(), &cpu_error);
  ASSERT_EQ(cpu_error, "") << "the CPU run threw (a test bug)";
  const Outputs got = RunOn(c, cuda, &gpu_error);
  ASSERT_EQ(gpu_error, "") << c.name << " threw on " << cuda.ToString();
  EXPECT_EQ(CompareAll(want, got, {.tolerance_scale = c.tolerance_scale}), "")
      << c.name << " (inputs from seed " << InputSeed() << ")";
  EXPECT_EQ(GetStats(cuda).fused_executions, 0u) << "fusion is off";
}

INSTANTIATE_TEST_SUITE_P(All, PublicOps, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<OpCase>& case_info) {
                           return case_info.param.name;
                         });

// The suite itself must cover what it claims (every op family, every dtype), GPU or not.
TEST(PublicOpsCoverage, EveryFamilyAndDtypeHasCases) {
  const std::vector<OpCase> cases = AllCases();
  for (const char* prefix :
       {"Creation_", "RandomUniform_", "RandomNormal_", "Unary_",       "SpecialValues_",
        "Binary_",   "Scalar_",        "Rem_",          "IntDivision_", "Compare_",
        "Mask_",     "Cast_from_",     "Views_",        "Cat",          "Indexing_",
        "Reduce_",   "ReduceProd_",    "ReduceSelect_", "ReduceNan_",   "Matmul_"}) {
    EXPECT_TRUE(std::any_of(cases.begin(), cases.end(), [&](const OpCase& c) {
      return c.name.rfind(prefix, 0) == 0;
    })) << prefix;
  }
  for (DType dtype : kAll) {
    EXPECT_TRUE(std::any_of(cases.begin(), cases.end(), [&](const OpCase& c) {
      return c.name == "Cast_from_" + Name(dtype);
    })) << Name(dtype);
  }
  // And every case runs on the CPU without throwing (the GPU comparison depends on it).
  UseFusion(false);
  for (const OpCase& c : cases) {
    std::string error;
    const Outputs out = RunOn(c, Device::Cpu(), &error);
    EXPECT_EQ(error, "") << c.name;
    EXPECT_FALSE(out.empty()) << c.name;
  }
  UseFusion(true);
}

}  // namespace
}  // namespace ember::gpu::public_ops
