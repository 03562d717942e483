#include "engine/runtime/kernel_key.h"

#include <xxhash.h>

#include <string>

namespace ember {
namespace {

// Bumped when the bytes hashed below change meaning, so old stored cubins stop matching.
constexpr uint64_t kKernelKeyVersion = 1;

// Each field as its length (8 bytes, little-endian) then its bytes, so that no two field lists
// hash the same bytes ("ab"+"c" vs "a"+"bc").
void HashField(XXH3_state_t* state, std::string_view field) {
  uint8_t length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<uint8_t>(field.size() >> (8 * i));
  XXH3_64bits_update(state, length, sizeof(length));
  XXH3_64bits_update(state, field.data(), field.size());
}

}  // namespace

// The key is never forced to 0 by EMBER_HASH_ZERO: a KernelStore answers Load by key alone.
// The kernel cache's in-memory lookup confirms by source, so a collision there is harmless.
KernelBinaryKey MakeKernelKey(const KernelSource& kernel, std::string_view options_text,
                              std::string_view arch, std::string_view compiler) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  const std::string version = std::to_string(kKernelKeyVersion);
  for (std::string_view field : {std::string_view(version), std::string_view(kernel.name),
                                 std::string_view(kernel.source), options_text, arch, compiler}) {
    HashField(state, field);
  }
  const uint64_t hash = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return {.hash = hash, .arch = std::string(arch), .compiler = std::string(compiler)};
}

}  // namespace ember
