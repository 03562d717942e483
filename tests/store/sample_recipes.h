// Graph recipes for the store's tests (Note [Graph recipes], store/persistent_recipes.h): a
// recipe whose body is a real tape (EncodeTape), key its TapeHash and kernels its TapeKernels,
// so that the store keeps it; and the kernel row a recipe's kernel hash names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/runtime/graph_recipe_store.h"
#include "engine/runtime/graph_tape.h"
#include "store/repository/column_encoding.h"
#include "store/repository/plan_rows.h"

namespace ember::test {

// A tape of one launch per kernel of `kernels`, in order, each `grid` blocks wide.
inline GraphRecipe SampleRecipe(const std::vector<uint64_t>& kernels, uint32_t grid = 4) {
  GraphTape tape;
  for (const uint64_t kernel : kernels) {
    tape.launches.push_back(
        {.kernel = kernel, .grid = grid, .threads = 128, .shared_bytes = 0, .arg_words = 3});
  }
  return {.key = TapeHash(tape), .body = EncodeTape(tape), .kernels = TapeKernels(tape)};
}

// A kernel row stored under the hash a recipe names (kernels.source_hash is its 8 bytes).
inline NewKernel KernelNamed(uint64_t hash, std::string arch = "sm_90") {
  return {.key = {.source_hash = Hash64Bytes(hash),
                  .arch = std::move(arch),
                  .compiler_version = "nvrtc 12.4"},
          .binary = {0x7f, 'E', 'L', 'F'}};
}

}  // namespace ember::test
