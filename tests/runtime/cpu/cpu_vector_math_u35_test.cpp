// The CPU's vector math under [cpu] math = "u35" (Note [CPU math accuracy],
// engine/runtime/cpu/vector_math.h): log, sin, cos and tanh within SLEEF's documented 3.5 ULP of
// a double-precision reference over a dense sample of all floats and the special values; exp,
// log1p and erf, which SLEEF has only at 1 ULP, bit-identical to the u10 table; results that do
// not depend on an element's position. tests/CMakeLists.txt runs this suite again on the 4-lane
// path (EMBER_CPU_VECTOR_MATH=sse), so both targets are checked.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <vector>

#include "engine/runtime/cpu/vector_math.h"
#include "tests/runtime/cpu/vector_math_checks.h"

namespace ember::cpu {
namespace {

using testing::ExpectPositionIndependent;
using testing::UlpError;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kMax = std::numeric_limits<float>::max();
constexpr float kMinNormal = std::numeric_limits<float>::min();
constexpr float kMinSubnormal = std::numeric_limits<float>::denorm_min();
constexpr double kBound = 3.5;  // SLEEF's documented bound of its u35 functions

struct Function {
  VectorFn fn;
  const char* name;
  double (*reference)(double);
};

const Function kU35Functions[] = {
    {VectorFn::kLog, "log", [](double x) { return std::log(x); }},
    {VectorFn::kSin, "sin", [](double x) { return std::sin(x); }},
    {VectorFn::kCos, "cos", [](double x) { return std::cos(x); }},
    {VectorFn::kTanh, "tanh", [](double x) { return std::tanh(x); }},
};

// Switches the process's accuracy for one test and back (UseCpuMath's REQUIRES: no kernel runs).
class CpuVectorMathU35 : public ::testing::Test {
 protected:
  void SetUp() override {
    before_ = CurrentCpuMath();
    UseCpuMath(CpuMath::kU35);
  }
  void TearDown() override { UseCpuMath(before_); }

 private:
  CpuMath before_ = CpuMath::kU10;
};

std::vector<float> Apply(VectorFn fn, const std::vector<float>& in) {
  std::vector<float> out(in.size());
  ApplyVectorFn(fn, in.data(), out.data(), static_cast<int64_t>(in.size()));
  return out;
}

// NaNs, infinities, zeros, subnormals, the normal range's edges, and each function's edges:
// where tanh saturates, log near 1, sin and cos near multiples of pi/2 and at huge arguments.
std::vector<float> SpecialValues() {
  std::vector<float> v = {std::numeric_limits<float>::quiet_NaN(),
                          -std::numeric_limits<float>::quiet_NaN(),
                          std::numeric_limits<float>::signaling_NaN(),
                          kInf,
                          -kInf,
                          0.0f,
                          -0.0f,
                          kMinSubnormal,
                          -kMinSubnormal,
                          3 * kMinSubnormal,
                          std::nextafter(kMinNormal, 0.0f),
                          -std::nextafter(kMinNormal, 0.0f),
                          kMinNormal,
                          -kMinNormal,
                          kMax,
                          -kMax,
                          std::nextafter(kMax, 0.0f),
                          1.0f,
                          -1.0f,
                          std::nextafter(1.0f, 0.0f),
                          std::nextafter(1.0f, 2.0f),
                          1e-7f,
                          -1e-7f,
                          0.5f,
                          8.0f,
                          8.5f,
                          9.0f,
                          9.01f,
                          -9.01f,
                          88.72f,
                          -88.72f,
                          89.0f,
                          1.5707964f,
                          3.1415927f,
                          -3.1415927f,
                          4.712389f,
                          6.2831855f,
                          125000.0f,
                          125001.0f,
                          1e8f,
                          -1e8f,
                          1e30f,
                          1e38f};
  return v;
}

// Every 1031st float of all 2^32 (about four million, every binade of both signs), then the
// special values.
std::vector<float> DenseSample() {
  std::vector<float> in;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 1031) {
    in.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  }
  for (float x : SpecialValues()) in.push_back(x);
  return in;
}

TEST_F(CpuVectorMathU35, EveryFunctionIsWithinItsBoundOverADenseSample) {
  std::cout << "vector math target: " << VectorMathTarget() << "\n";
  const std::vector<float> in = DenseSample();
  for (const Function& f : kU35Functions) {
    const std::vector<float> out = Apply(f.fn, in);
    double worst = 0;
    float worst_x = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      const double e = UlpError(out[i], f.reference(in[i]));
      if (e > worst) {
        worst = e;
        worst_x = in[i];
      }
    }
    EXPECT_LE(worst, kBound) << f.name << " at " << worst_x << " (" << std::hexfloat << worst_x
                             << ")";
    std::cout << f.name << ": worst " << worst << " ULP at " << worst_x << "\n";
  }
}

TEST_F(CpuVectorMathU35, SpecialValuesAreIeee) {
  auto one = [](VectorFn fn, float x) {
    float y = 0;
    ApplyVectorFn(fn, &x, &y, 1);
    return y;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const Function& f : kU35Functions) EXPECT_TRUE(std::isnan(one(f.fn, nan))) << f.name;
  EXPECT_EQ(one(VectorFn::kLog, 0.0f), -kInf);
  EXPECT_EQ(one(VectorFn::kLog, -0.0f), -kInf);
  EXPECT_EQ(one(VectorFn::kLog, 1.0f), 0.0f);
  EXPECT_EQ(one(VectorFn::kLog, kInf), kInf);
  EXPECT_TRUE(std::isnan(one(VectorFn::kLog, -1.0f)));
  EXPECT_TRUE(std::isnan(one(VectorFn::kLog, -kMinSubnormal)));
  EXPECT_TRUE(std::isnan(one(VectorFn::kLog, -kInf)));
  EXPECT_TRUE(std::isfinite(one(VectorFn::kLog, kMinSubnormal)));
  EXPECT_TRUE(std::isfinite(one(VectorFn::kLog, kMax)));
  EXPECT_EQ(one(VectorFn::kTanh, kInf), 1.0f);
  EXPECT_EQ(one(VectorFn::kTanh, -kInf), -1.0f);
  EXPECT_EQ(one(VectorFn::kTanh, 100.0f), 1.0f);
  EXPECT_EQ(one(VectorFn::kTanh, -kMax), -1.0f);
  EXPECT_TRUE(std::isnan(one(VectorFn::kSin, kInf)));
  EXPECT_TRUE(std::isnan(one(VectorFn::kSin, -kInf)));
  EXPECT_TRUE(std::isnan(one(VectorFn::kCos, kInf)));
  EXPECT_TRUE(std::isnan(one(VectorFn::kCos, -kInf)));
  EXPECT_EQ(one(VectorFn::kCos, 0.0f), 1.0f);
  EXPECT_EQ(one(VectorFn::kCos, -0.0f), 1.0f);
  // Odd functions keep the sign of zero.
  for (VectorFn fn : {VectorFn::kSin, VectorFn::kTanh}) {
    EXPECT_EQ(std::bit_cast<uint32_t>(one(fn, 0.0f)), 0u);
    EXPECT_EQ(std::bit_cast<uint32_t>(one(fn, -0.0f)), 0x80000000u);
  }
}

// SLEEF 3.5 has exp, log1p and erf only at 1 ULP: under u35 they are the very same functions.
TEST_F(CpuVectorMathU35, TheFunctionsWithoutAU35VariantAreUnchanged) {
  const std::vector<float> in = DenseSample();
  for (VectorFn fn : {VectorFn::kExp, VectorFn::kLog1p, VectorFn::kErf}) {
    const std::vector<float> u35 = Apply(fn, in);
    UseCpuMath(CpuMath::kU10);
    const std::vector<float> u10 = Apply(fn, in);
    UseCpuMath(CpuMath::kU35);
    ASSERT_EQ(std::memcmp(u35.data(), u10.data(), u35.size() * sizeof(float)), 0)
        << static_cast<int>(fn);
  }
}

// The switch takes effect: each u35 function differs from its u10 twin somewhere in the
// sample, and no result moves by more than both bounds allow.
TEST_F(CpuVectorMathU35, TheSettingChangesTheFourFunctions) {
  EXPECT_EQ(CurrentCpuMath(), CpuMath::kU35);
  const std::vector<float> in = DenseSample();
  for (const Function& f : kU35Functions) {
    const std::vector<float> u35 = Apply(f.fn, in);
    UseCpuMath(CpuMath::kU10);
    const std::vector<float> u10 = Apply(f.fn, in);
    UseCpuMath(CpuMath::kU35);
    size_t differing = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      if (std::bit_cast<uint32_t>(u35[i]) != std::bit_cast<uint32_t>(u10[i])) ++differing;
    }
    EXPECT_GT(differing, 0u) << f.name;
  }
}

TEST_F(CpuVectorMathU35, AResultDoesNotDependOnTheElementsPosition) {
  std::vector<float> in(37);
  for (size_t i = 0; i < in.size(); ++i) in[i] = 0.01f + 0.37f * static_cast<float>(i);
  for (const Function& f : kU35Functions) ExpectPositionIndependent(f.fn, f.name, in);
}

}  // namespace
}  // namespace ember::cpu
