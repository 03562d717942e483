// The device code every generated kernel starts with: domain loads and stores, the integer
// rules, aligned vector moves and the reduction helpers. It lives in prelude.cuh, CUDA C++ that
// is compiled into ember as text (codegen/CMakeLists.txt, cmake/EmbedText.cmake) and given to
// NVRTC byte for byte at the head of every kernel's source.
//
// The rules are the CPU backend's, so a GPU result differs from the CPU's only by the last bits
// of the math functions:
//   Note [CPU compute domains] (engine/runtime/cpu/convert.h) for loads and stores;
//   the kernel table (engine/runtime/cpu/kernels.h, ElementTile) for the ops;
//   engine/runtime/cpu/reduce_fold.h for reductions (double / wrapping i64 sums and products,
//   NaN wins in max/min, the first extreme's index; Note [Reduce accumulators] in prelude.cuh).
//
// Every kernel's cache key hashes its source, the prelude included (MakeKernelKey), so a
// changed byte of prelude.cuh compiles every kernel again and leaves every stored binary
// behind: tests/codegen/prelude_test.cpp pins its length and hash.
#pragma once

#include <string_view>

namespace ember::codegen {

// The text of prelude.cuh.
std::string_view CudaPrelude();

}  // namespace ember::codegen
