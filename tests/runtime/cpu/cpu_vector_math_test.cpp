// The CPU's vector math (engine/runtime/cpu/vector_math.h, SLEEF's u10 functions): at most
// 1 ULP from a double-precision reference over each function's useful range, IEEE special
// values, and results that do not depend on an element's position in the array.
#include "engine/runtime/cpu/vector_math.h"
#include "tests/runtime/cpu/vector_math_checks.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace ember::cpu {
namespace {

using testing::ExpectPositionIndependent;
using testing::UlpError;

constexpr float kInf = std::numeric_limits<float>::infinity();

struct Function {
  VectorFn fn;
  const char* name;
  double (*reference)(double);
  float lo, hi;  // where inputs are drawn (plus the specials below)
};

const Function kFunctions[] = {
    {VectorFn::kExp, "exp", [](double x) { return std::exp(x); }, -87.0f, 88.0f},
    // log and log1p up to the largest float: SLEEF's log1pf alone overflows above 1e38.
    {VectorFn::kLog, "log", [](double x) { return std::log(x); }, 1e-30f,
     std::numeric_limits<float>::max()},
    {VectorFn::kLog1p, "log1p", [](double x) { return std::log1p(x); }, -0.999f,
     std::numeric_limits<float>::max()},
    {VectorFn::kSin, "sin", [](double x) { return std::sin(x); }, -1e4f, 1e4f},
    {VectorFn::kCos, "cos", [](double x) { return std::cos(x); }, -1e4f, 1e4f},
    {VectorFn::kTanh, "tanh", [](double x) { return std::tanh(x); }, -20.0f, 20.0f},
    {VectorFn::kErf, "erf", [](double x) { return std::erf(x); }, -6.0f, 6.0f},
};

std::vector<float> Inputs(const Function& f) {
  std::mt19937 gen(1234);
  std::vector<float> in;
  // Uniform over the range and, for wide ranges, log-uniform magnitudes too.
  std::uniform_real_distribution<float> uniform(f.lo, f.hi);
  for (int i = 0; i < 20000; ++i) in.push_back(uniform(gen));
  std::uniform_real_distribution<float> exponent(
      -20.0f, std::log2(std::max(std::abs(f.lo), std::abs(f.hi))));
  for (int i = 0; i < 20000; ++i) {
    const float x = std::exp2(exponent(gen));
    if (x >= f.lo && x <= f.hi) in.push_back(x);
    if (-x >= f.lo && -x <= f.hi) in.push_back(-x);
  }
  for (float x : {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 1e-7f, -1e-7f, 1e38f, 1.0000001e38f, 3e38f,
                  std::numeric_limits<float>::max()}) {
    if (x >= f.lo && x <= f.hi) in.push_back(x);
  }
  return in;
}

// tests/CMakeLists.txt runs this suite again with EMBER_CPU_VECTOR_MATH=sse: that run must
// have taken the 4-lane path, whatever the machine has.
TEST(CpuVectorMath, TheForcedPathIsTaken) {
  const char* forced = std::getenv("EMBER_CPU_VECTOR_MATH");
  if (forced == nullptr || std::string_view(forced) != "sse") GTEST_SKIP() << "not forced";
  EXPECT_EQ(VectorMathTarget(), "sse");
}

TEST(CpuVectorMath, EveryFunctionIsWithinOneUlp) {
  std::cout << "vector math target: " << VectorMathTarget() << "\n";
  for (const Function& f : kFunctions) {
    const std::vector<float> in = Inputs(f);
    std::vector<float> out(in.size());
    ApplyVectorFn(f.fn, in.data(), out.data(), static_cast<int64_t>(in.size()));
    double worst = 0;
    float worst_x = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      const double e = UlpError(out[i], f.reference(in[i]));
      if (e > worst) {
        worst = e;
        worst_x = in[i];
      }
    }
    EXPECT_LE(worst, 1.0) << f.name << " at " << worst_x;
  }
}

TEST(CpuVectorMath, SpecialValuesAreIeee) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto one = [](VectorFn fn, float x) {
    float y = 0;
    ApplyVectorFn(fn, &x, &y, 1);
    return y;
  };
  for (const Function& f : kFunctions) EXPECT_TRUE(std::isnan(one(f.fn, nan))) << f.name;
  EXPECT_EQ(one(VectorFn::kExp, -kInf), 0.0f);
  EXPECT_EQ(one(VectorFn::kExp, kInf), kInf);
  EXPECT_EQ(one(VectorFn::kExp, 100.0f), kInf);  // overflows
  EXPECT_EQ(one(VectorFn::kExp, 0.0f), 1.0f);
  EXPECT_EQ(one(VectorFn::kLog, 0.0f), -kInf);
  EXPECT_EQ(one(VectorFn::kLog, 1.0f), 0.0f);
  EXPECT_TRUE(std::isnan(one(VectorFn::kLog, -1.0f)));
  EXPECT_EQ(one(VectorFn::kLog, kInf), kInf);
  EXPECT_EQ(one(VectorFn::kLog1p, -1.0f), -kInf);
  EXPECT_EQ(one(VectorFn::kLog1p, kInf), kInf);
  EXPECT_EQ(one(VectorFn::kTanh, kInf), 1.0f);
  EXPECT_EQ(one(VectorFn::kTanh, -kInf), -1.0f);
  EXPECT_EQ(one(VectorFn::kErf, kInf), 1.0f);
  EXPECT_EQ(one(VectorFn::kErf, -kInf), -1.0f);
  EXPECT_TRUE(std::isnan(one(VectorFn::kSin, kInf)));
  EXPECT_TRUE(std::isnan(one(VectorFn::kCos, -kInf)));
  EXPECT_TRUE(std::signbit(one(VectorFn::kSin, -0.0f)));
}

TEST(CpuVectorMath, AResultDoesNotDependOnTheElementsPosition) {
  std::vector<float> in(37);
  for (size_t i = 0; i < in.size(); ++i) in[i] = -3.0f + 0.17f * static_cast<float>(i);
  for (const Function& f : kFunctions) ExpectPositionIndependent(f.fn, f.name, in);
}

TEST(CpuVectorMath, InPlaceIsAllowed) {
  std::vector<float> x = {0.0f, 1.0f, 2.0f, -1.0f, 0.25f};
  std::vector<float> want(x.size());
  ApplyVectorFn(VectorFn::kExp, x.data(), want.data(), 5);
  ApplyVectorFn(VectorFn::kExp, x.data(), x.data(), 5);
  EXPECT_EQ(x, want);
}

}  // namespace
}  // namespace ember::cpu
