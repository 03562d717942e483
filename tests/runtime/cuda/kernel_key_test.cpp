// Kernel cache keys: everything that decides a cubin changes the key, and the hash is pinned
// (a stored cubin must be found again by the next release).
#include <gtest/gtest.h>

#include "engine/runtime/cuda/kernel_cache.h"

namespace ember::cuda {
namespace {

const KernelSource kKernel = {.name = "ember_k",
                              .source = "extern \"C\" __global__ void ember_k() {}"};
constexpr const char* kOptions = "--gpu-architecture=sm_90 -std=c++17 -default-device";

TEST(KernelKey, SameInputsSameKey) {
  EXPECT_EQ(MakeKernelKey(kKernel, kOptions, "sm_90", "nvrtc-13.0"),
            MakeKernelKey(kKernel, kOptions, "sm_90", "nvrtc-13.0"));
}

TEST(KernelKey, ArchOptionsSourceNameAndCompilerEachChangeTheKey) {
  const KernelBinaryKey base = MakeKernelKey(kKernel, kOptions, "sm_90", "nvrtc-13.0");
  const KernelBinaryKey other_arch = MakeKernelKey(kKernel, kOptions, "sm_80", "nvrtc-13.0");
  EXPECT_NE(other_arch, base);
  EXPECT_NE(other_arch.hash, base.hash);
  EXPECT_EQ(other_arch.arch, "sm_80");

  EXPECT_NE(MakeKernelKey(kKernel, "-std=c++17", "sm_90", "nvrtc-13.0").hash, base.hash);
  const KernelSource other_source = {.name = kKernel.name, .source = kKernel.source + " "};
  EXPECT_NE(MakeKernelKey(other_source, kOptions, "sm_90", "nvrtc-13.0").hash, base.hash);
  const KernelSource other_name = {.name = "ember_j", .source = kKernel.source};
  EXPECT_NE(MakeKernelKey(other_name, kOptions, "sm_90", "nvrtc-13.0").hash, base.hash);
  const KernelBinaryKey other_compiler = MakeKernelKey(kKernel, kOptions, "sm_90", "nvrtc-13.1");
  EXPECT_NE(other_compiler.hash, base.hash);
  EXPECT_NE(other_compiler, base);
}

TEST(KernelKey, FieldBoundariesMatter) {
  // The same bytes split differently between fields must not collide.
  const KernelSource a = {.name = "ab", .source = "c"};
  const KernelSource b = {.name = "a", .source = "bc"};
  EXPECT_NE(MakeKernelKey(a, "", "sm_90", "x").hash, MakeKernelKey(b, "", "sm_90", "x").hash);
}

TEST(KernelKey, HashIsPinned) {
  EXPECT_EQ(MakeKernelKey(kKernel, kOptions, "sm_90", "nvrtc-13.0").hash, 0xee4d4d1c0f1fbbd5u);
}

}  // namespace
}  // namespace ember::cuda
