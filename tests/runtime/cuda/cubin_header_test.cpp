// The SM a cubin names in its ELF header, read from real NVRTC output for two architectures
// (no GPU needed: NVRTC compiles for any arch), and refused for what is not a CUDA ELF image.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/runtime/cuda/cubin_header.h"
#include "engine/runtime/cuda/nvrtc_api.h"

namespace ember::cuda {
namespace {

constexpr const char* kSource = R"(extern "C" __global__ void ember_k(float* x) { x[0] = 1; })";

TEST(CubinHeader, NamesTheArchitectureNvrtcCompiledFor) {
  for (const char* arch : {"sm_80", "sm_90"}) {
    const std::vector<char> cubin = CompileToCubin(kSource, "k.cu", arch, {});
    EXPECT_EQ(CubinSmVersion(cubin), ArchSmVersion(arch)) << arch;
  }
}

TEST(CubinHeader, RefusesWhatIsNotACudaElfImage) {
  EXPECT_EQ(CubinSmVersion(std::vector<char>(256, 'x')), std::nullopt);
  EXPECT_EQ(CubinSmVersion(std::vector<char>{'\x7f', 'E', 'L', 'F'}), std::nullopt);  // truncated
  std::vector<char> host_elf(64, 0);
  const std::string magic =
      "\x7f"
      "ELF";
  std::copy(magic.begin(), magic.end(), host_elf.begin());
  host_elf[4] = 2;  // 64-bit
  host_elf[5] = 1;  // little-endian
  host_elf[7] = 0;  // System V: a host object, not a cubin
  EXPECT_EQ(CubinSmVersion(host_elf), std::nullopt);
}

TEST(CubinHeader, ArchNames) {
  EXPECT_EQ(ArchSmVersion("sm_90"), 90);
  EXPECT_EQ(ArchSmVersion("sm_90a"), 90);
  EXPECT_EQ(ArchSmVersion("sm_120"), 120);
  EXPECT_EQ(ArchSmVersion("compute_90"), std::nullopt);
  EXPECT_EQ(ArchSmVersion("sm_"), std::nullopt);
}

}  // namespace
}  // namespace ember::cuda
