// [cpu] math (Note [CPU math accuracy], engine/runtime/cpu/vector_math.h), end to end on the
// CPU: the device takes the setting as it starts, fused and unfused runs stay bit-identical
// under either accuracy, u35 changes results where SLEEF has 3.5-ULP functions and nowhere
// else, and the environment fingerprint differs between the settings (u10's is unchanged), so
// no stored plan crosses bounds.
#include <bit>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>

#include "engine/api/device_setup.h"
#include "engine/core/config.h"
#include "engine/runtime/cpu/vector_math.h"
#include "store/codec/environment_fingerprint.h"
#include "tests/api/api_test_util.h"

namespace ember {
namespace {

constexpr int64_t kCount = 3000;  // two full tiles and a partial one

std::vector<float> Inputs() {
  std::vector<float> v(kCount);
  for (int64_t i = 0; i < kCount; ++i) v[i] = -6.0f + 12.0f * static_cast<float>(i) / kCount;
  return v;
}

struct Results {
  std::vector<float> chain;    // chain8's ops and log, cos, erf: every function in one program
  std::vector<float> exp_erf;  // exp and erf alone: u35 must not change them
  uint64_t fused = 0;
  CpuMath device_math = CpuMath::kU10;
};

// Runs the programs on a fresh CPU device under `math`, fused or not.
Results RunPrograms(CpuMath math, bool fusion) {
  const Config before = GlobalConfig();
  Config config = before;
  config.cpu_math = math;
  config.fusion_enabled = fusion;
  config.plan_db = "off";
  SetGlobalConfigForTesting(config);
  ReleaseDevice(Device::Cpu());
  Results r;
  testing::OnFreshStream([&] {
    Tensor x = Tensor::FromVector(Inputs(), {kCount});
    Sync();
    r.device_math = cpu::CurrentCpuMath();
    const Stats start = GetStats();
    for (int step = 0; step < 3; ++step) {  // a miss, then hits of the stored plan
      Tensor y = ((x * 0.5 + 1.0).Exp() - 0.25).Tanh() * 3.0;
      Tensor z = (std::move(y).Sin().Abs() + 1e-3).Log() + x.Cos() + (x * 0.3).Erf();
      Tensor e = (x * 0.5).Exp() + x.Erf();
      r.chain = std::move(z).ToVector<float>();
      r.exp_erf = std::move(e).ToVector<float>();
    }
    r.fused = GetStats().fused_executions - start.fused_executions;
  });
  SetGlobalConfigForTesting(before);
  ReleaseDevice(Device::Cpu());
  return r;
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::bit_cast<uint32_t>(a[i]) != std::bit_cast<uint32_t>(b[i])) return false;
  }
  return true;
}

TEST(CpuMath, TheDeviceTakesTheSettingAsItStarts) {
  EXPECT_EQ(RunPrograms(CpuMath::kU35, true).device_math, CpuMath::kU35);
  EXPECT_EQ(RunPrograms(CpuMath::kU10, true).device_math, CpuMath::kU10);
}

TEST(CpuMath, FusedAndUnfusedAreBitIdenticalUnderEitherSetting) {
  for (CpuMath math : {CpuMath::kU10, CpuMath::kU35}) {
    SCOPED_TRACE(CpuMathName(math));
    const Results fused = RunPrograms(math, true);
    const Results unfused = RunPrograms(math, false);
    EXPECT_GT(fused.fused, 0u) << "the program must have run fused";
    EXPECT_EQ(unfused.fused, 0u);
    EXPECT_TRUE(SameBits(fused.chain, unfused.chain));
    EXPECT_TRUE(SameBits(fused.exp_erf, unfused.exp_erf));
  }
}

TEST(CpuMath, U35ChangesTheFunctionsItCoversAndNothingElse) {
  const Results u10 = RunPrograms(CpuMath::kU10, true);
  const Results u35 = RunPrograms(CpuMath::kU35, true);
  EXPECT_FALSE(SameBits(u10.chain, u35.chain)) << "tanh, sin, log and cos take u35";
  EXPECT_TRUE(SameBits(u10.exp_erf, u35.exp_erf)) << "SLEEF has no 3.5-ULP exp or erf";
}

TEST(CpuMath, TheFingerprintDiffersBetweenSettings) {
  Config config;
  const EnvironmentFingerprint u10 = FingerprintOf(Device::Cpu(), config);
  config.cpu_math = CpuMath::kU35;
  const EnvironmentFingerprint u35 = FingerprintOf(Device::Cpu(), config);
  EXPECT_EQ(u10.cpu_math, "u10");
  EXPECT_EQ(u35.cpu_math, "u35");
  EXPECT_NE(EnvironmentStableId(u10), EnvironmentStableId(u35));
  // u10, the default, writes nothing new: existing CPU environments keep their ids.
  EXPECT_EQ(CanonicalEnvironmentText(u10).find("cpu_math"), std::string::npos);
  EXPECT_TRUE(CanonicalEnvironmentText(u35).ends_with(R"(,"cpu_math":"u35"})"));
}

}  // namespace
}  // namespace ember
