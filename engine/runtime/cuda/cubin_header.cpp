#include "engine/runtime/cuda/cubin_header.h"

#include <cstdint>
#include <cstring>

namespace ember::cuda {
namespace {

// ELF64 header offsets (the System V ABI; /usr/include/elf.h names them).
constexpr size_t kClassOffset = 4;   // EI_CLASS
constexpr size_t kDataOffset = 5;    // EI_DATA
constexpr size_t kOsAbiOffset = 7;   // EI_OSABI
constexpr size_t kFlagsOffset = 48;  // e_flags in Elf64_Ehdr
constexpr size_t kHeaderBytes = 64;  // sizeof(Elf64_Ehdr)
constexpr uint8_t kClass64 = 2;
constexpr uint8_t kLittleEndian = 1;
constexpr uint8_t kCudaAbiOld = 0x33;
constexpr uint8_t kCudaAbiV8 = 0x41;

}  // namespace

std::optional<int> CubinSmVersion(std::span<const char> cubin) {
  if (cubin.size() < kHeaderBytes || std::memcmp(cubin.data(),
                                                 "\x7f"
                                                 "ELF",
                                                 4) != 0) {
    return std::nullopt;
  }
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(cubin[i]); };
  if (byte(kClassOffset) != kClass64 || byte(kDataOffset) != kLittleEndian) return std::nullopt;
  uint32_t flags = 0;
  for (int i = 3; i >= 0; --i) flags = (flags << 8) | byte(kFlagsOffset + i);
  switch (byte(kOsAbiOffset)) {
    case kCudaAbiOld: return static_cast<int>(flags & 0xff);
    case kCudaAbiV8: return static_cast<int>((flags >> 8) & 0xff);
    default: return std::nullopt;
  }
}

std::optional<int> ArchSmVersion(std::string_view arch) {
  if (!arch.starts_with("sm_")) return std::nullopt;
  int sm = 0;
  size_t digits = 0;
  for (size_t i = 3; i < arch.size() && arch[i] >= '0' && arch[i] <= '9'; ++i, ++digits) {
    sm = sm * 10 + (arch[i] - '0');
  }
  if (digits == 0) return std::nullopt;
  return sm;
}

}  // namespace ember::cuda
