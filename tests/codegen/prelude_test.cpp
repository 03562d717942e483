// The CUDA prelude (codegen/prelude.h) is the start of every generated kernel, so its bytes are
// part of every kernel's cache key (MakeKernelKey hashes the source): a changed byte makes every
// stored kernel binary unreachable. The golden sources leave it out (golden_cases.h), so its
// length and hash are pinned here; change them only with a change to the prelude meant to
// recompile every kernel.
#include <gtest/gtest.h>

#include "codegen/prelude.h"
#include "engine/ir/hash.h"

namespace ember {
namespace {

TEST(CudaPrelude, BytesArePinned) {
  const std::string_view prelude = codegen::CudaPrelude();
  EXPECT_EQ(prelude.size(), 11067u);
  EXPECT_EQ(HashText(prelude), 0xedc6bf35ffca8c8cu);
}

TEST(CudaPrelude, StartsWithItsIncludesAndEndsWithALine) {
  const std::string_view prelude = codegen::CudaPrelude();
  EXPECT_TRUE(prelude.starts_with("#include <cuda_fp16.h>\n"));
  EXPECT_TRUE(prelude.ends_with("}\n"));
}

}  // namespace
}  // namespace ember
