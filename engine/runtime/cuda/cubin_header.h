// What a cubin says about itself before the driver sees it: the SM it was built for, read from
// its ELF header. A stored binary is checked against the device before cuModuleLoadData, so a
// kernel compiled for another GPU (a database copied between machines, a mislabelled row) is
// never loaded: it is compiled again instead (kernel_cache.h).
//
// The CUDA ELF header: EI_OSABI is 0x33 in the older ABI (the SM in e_flags' low byte) and 0x41
// in ABI version 8 and later, which CUDA 12.8+ writes (the SM in e_flags' second byte); seen
// with `nvcc -cubin -arch=sm_80/90/100/120` and `readelf -h` (sm_90: e_flags 0x6005a04).
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace ember::cuda {

// The SM number (90 for sm_90 and sm_90a) of `cubin`, or nullopt when it is not a 64-bit CUDA
// ELF image this code knows how to read.
std::optional<int> CubinSmVersion(std::span<const char> cubin);

// The SM number of an arch name ("sm_90" -> 90, "sm_90a" -> 90), or nullopt.
std::optional<int> ArchSmVersion(std::string_view arch);

}  // namespace ember::cuda
