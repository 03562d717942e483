#include "store/codec/row_checksum.h"

// For XXH3_state_t on the stack (no allocation that could fail).
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include <array>

namespace ember {

uint64_t PlanChecksum(std::span<const uint8_t> ops_blob, std::span<const uint8_t> plan_blob) {
  std::array<uint8_t, 8> length{};
  uint64_t size = ops_blob.size();
  for (uint8_t& byte : length) {
    byte = static_cast<uint8_t>(size & 0xff);
    size >>= 8;
  }
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, length.data(), length.size());
  XXH3_64bits_update(&state, ops_blob.data(), ops_blob.size());
  XXH3_64bits_update(&state, plan_blob.data(), plan_blob.size());
  return XXH3_64bits_digest(&state);
}

uint64_t KernelChecksum(std::span<const uint8_t> binary) {
  return XXH3_64bits(binary.data(), binary.size());
}

namespace {

void UpdateWord(XXH3_state_t& state, uint64_t word) {
  std::array<uint8_t, 8> bytes{};
  for (uint8_t& byte : bytes) {
    byte = static_cast<uint8_t>(word & 0xff);
    word >>= 8;
  }
  XXH3_64bits_update(&state, bytes.data(), bytes.size());
}

}  // namespace

uint64_t GraphRecipeChecksum(uint64_t key, std::string_view body,
                             std::span<const uint64_t> kernels) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  UpdateWord(state, key);
  UpdateWord(state, body.size());
  XXH3_64bits_update(&state, body.data(), body.size());
  for (const uint64_t kernel : kernels) UpdateWord(state, kernel);
  return XXH3_64bits_digest(&state);
}

uint64_t DeviceFactChecksum(std::string_view name, std::string_view value) {
  return PlanChecksum({reinterpret_cast<const uint8_t*>(name.data()), name.size()},
                      {reinterpret_cast<const uint8_t*>(value.data()), value.size()});
}

}  // namespace ember
